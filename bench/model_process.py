"""The scripted model server in a process of its own, for benchmarks that time the gateway.

A real model endpoint is never a thread of the gateway's process. Run as a thread (as the tests do),
the stand-in model competes with the code being timed for the GIL on every hand-off, which adds
milliseconds that no deployment would see. Here it runs in a child process:

    python -m bench.model_process MODEL        (started by `ModelProcess`, not by hand)

The child prints its port, then answers each line read on stdin:
  `take`  → one JSON line: the chat requests finished since the last `take`, each with `received_at`,
            `finished_at`, the request's `content-length` and message count; then forgets them.
  `quit`  → stops the server and exits.
Timestamps are `time.perf_counter()`, CLOCK_MONOTONIC on Linux: the same clock in every process, so the
parent can subtract its own stamps from them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import IO

from tests.support.model_server import ScriptedModelServer


@dataclass(frozen=True, slots=True)
class ServedRequest:
    received_at: float  # the handler started (before the body was read)
    finished_at: float  # after the reply's last byte (`write_eof`)
    request_bytes: int
    messages: int


class ModelProcess:
    """Starts and talks to the child; use as a context manager."""

    def __init__(self, model: str) -> None:
        self._model = model
        self._proc: subprocess.Popen[str] | None = None
        self.port = 0

    def __enter__(self) -> ModelProcess:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "bench.model_process", self._model],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.port = int(self._line())
        return self

    def __exit__(self, *exc_info: object) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            self._send(proc, "quit")
            proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def take(self) -> list[ServedRequest]:
        """The chat requests served since the last call (each finished), oldest first."""
        assert self._proc is not None
        self._send(self._proc, "take")
        return [ServedRequest(**row) for row in json.loads(self._line())]

    def _line(self) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the model process exited (status {self._proc.poll()})")
        return line

    @staticmethod
    def _send(proc: subprocess.Popen[str], command: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(command + "\n")
        proc.stdin.flush()


def _finished(server: ScriptedModelServer) -> list[dict[str, float | int]]:
    deadline = time.perf_counter() + 5.0
    while True:
        records = server.chat_requests
        if all(r.finished_at is not None for r in records) or time.perf_counter() > deadline:
            break
        time.sleep(0.0005)
    server.reset()
    return [
        {
            "received_at": r.received_at,
            "finished_at": r.finished_at or 0.0,
            "request_bytes": int(r.headers.get("content-length", 0)),
            "messages": len(r.messages),
        }
        for r in records
    ]


def serve(model: str, commands: IO[str], out: IO[str]) -> None:
    with ScriptedModelServer(models=(model,), instant=True) as server:
        out.write(f"{server.port}\n")
        out.flush()
        for command in commands:
            if command.strip() == "take":
                out.write(json.dumps(_finished(server)) + "\n")
                out.flush()
            elif command.strip() == "quit":
                break


if __name__ == "__main__":
    serve(sys.argv[1], sys.stdin, sys.stdout)
