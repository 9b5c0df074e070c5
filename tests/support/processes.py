"""Running the real `claw` CLI as a subprocess, and waiting on what other processes do."""

from __future__ import annotations

import atexit
import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_claw(
    env: dict[str, str], *args: str, timeout: float = 60, cwd: Path | str = REPO, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`claw ARGS` as its own process (forked from a server that imported claw once: tests/support/claw_forkserver.py),
    from the repository root unless `cwd` says otherwise, output captured, stdin empty unless `input` is given."""
    env = {**env, "PYTHONPATH": str(REPO)}
    return _fork_server().run(list(args), env=env, cwd=str(cwd), timeout=timeout, input=input)


class _ForkServerClient:
    """This test process's own fork server (one per pytest-xdist worker), started on first use, ended with it."""

    def __init__(self) -> None:
        self._dir = tempfile.mkdtemp(prefix="claw-fork-")
        self.path = os.path.join(self._dir, "s")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
        env["PYTHONPATH"] = str(REPO)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.claw_forkserver", self.path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=REPO,
        )  # fmt: skip
        assert self._process.stdout is not None
        ready = self._process.stdout.readline()
        if ready.strip() != b"ready":
            raise RuntimeError(f"the claw fork server did not start ({ready!r})")
        atexit.register(self.close)

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
        if self._process.stdout is not None:
            self._process.stdout.close()
        for leftover in (self.path, self._dir):
            try:
                os.unlink(leftover) if leftover == self.path else os.rmdir(leftover)
            except OSError:
                pass

    def run(
        self, args: list[str], *, env: dict[str, str], cwd: str, timeout: float, input: str | None
    ) -> subprocess.CompletedProcess[str]:
        argv = ["claw", *args]
        stdin_read, stdin_write = os.pipe()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(self.path)
            request = json.dumps({"args": args, "env": env, "cwd": cwd}).encode() + b"\n"
            socket.send_fds(conn, [request], [stdin_read, out_write, err_write])
            for fd in (stdin_read, out_write, err_write):
                os.close(fd)
            feeder = threading.Thread(target=_feed, args=(stdin_write, (input or "").encode()), daemon=True)
            feeder.start()
            out, err, status, pid = _collect(conn, out_read, err_read, time.monotonic() + timeout)
            feeder.join(timeout=5)
        if status is None:
            if pid is not None:
                _kill(pid)
            raise subprocess.TimeoutExpired(argv, timeout, output=_text(out), stderr=_text(err))
        return subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status), _text(out), _text(err))


def _feed(fd: int, data: bytes) -> None:
    try:
        if data:
            os.write(fd, data)
    except OSError:
        pass
    finally:
        os.close(fd)


def _collect(
    conn: socket.socket, out_fd: int, err_fd: int, deadline: float
) -> tuple[bytes, bytes, int | None, int | None]:
    """Read the child's stdout and stderr to their ends and its status from the server, until `deadline`."""
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    replies = b""
    pid: int | None = None
    status: int | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(out_fd, selectors.EVENT_READ)
        selector.register(err_fd, selectors.EVENT_READ)
        selector.register(conn, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for key, _ in selector.select(left):
                if key.fileobj is conn:
                    data = conn.recv(65536)
                    replies += data
                    if not data:
                        selector.unregister(conn)
                    continue
                fd = key.fd
                data = os.read(fd, 65536)
                if data:
                    chunks[fd].append(data)
                else:
                    selector.unregister(fd)
            for line in replies.splitlines():
                reply = json.loads(line)
                pid = reply.get("pid", pid)
                status = reply.get("status", status)
    for fd in (out_fd, err_fd):
        os.close(fd)
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd]), status, pid


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass


def _text(data: bytes) -> str:
    return data.decode().replace("\r\n", "\n").replace("\r", "\n")


_server: _ForkServerClient | None = None
_server_lock = threading.Lock()


def _fork_server() -> _ForkServerClient:
    global _server
    with _server_lock:
        if _server is None or _server._process.poll() is not None:
            _server = _ForkServerClient()
        return _server


def wait_until(predicate: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
    """Poll `predicate` every 50 ms until it returns something truthy (returned); AssertionError after `timeout`."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return value
