"""A real llama.cpp `llama-server` with a tiny model, for the `realmodel` tests (tests/realmodel/).

scripts/install-llama-server.sh builds the server and fetches SmolLM2-135M-Instruct into
`${XDG_CACHE_HOME:-~/.cache}/claw-llama/` (`.ci/run` runs it). `find_llama()` finds both there (or at
`CLAW_LLAMA_SERVER` / `CLAW_LLAMA_MODEL`); `LlamaServer` starts the server on a free loopback port with
`-c 4096 --jinja`, as docs/local-models.md says to run it, and waits for `/health`.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

WINDOW = 4096
MODEL_NAME = "smollm2"
START_TIMEOUT_SECONDS = 120.0
MAX_REPLY_TOKENS = 48
"""The server's own cap on a reply (`-n`): the tiny model rambles; the tests assert claw's behaviour, not prose."""


def find_llama() -> tuple[Path, Path] | str:
    """`(server binary, model)` from the install script's cache, or why they cannot be used."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "claw-llama"
    server = os.environ.get("CLAW_LLAMA_SERVER") or next(iter(sorted(cache.glob("llama-server-*/llama-server"))), None)
    model = os.environ.get("CLAW_LLAMA_MODEL") or next(iter(sorted(cache.glob("smollm2-*.gguf"))), None)
    if server is None or not os.access(server, os.X_OK):
        return f"no llama-server in {cache}: run scripts/install-llama-server.sh"
    if model is None or not Path(model).is_file():
        return f"no SmolLM2 GGUF in {cache}: run scripts/install-llama-server.sh"
    return Path(server), Path(model)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """`llama-server -m MODEL -c 4096 --jinja` on 127.0.0.1, its log in `log_path`."""

    def __init__(
        self, binary: Path, model: Path, log_path: Path, window: int = WINDOW, extra: tuple[str, ...] = ()
    ) -> None:
        self.port = free_port()
        self.window = window
        self.log_path = log_path
        self._log = open(log_path, "wb")  # noqa: SIM115 (closed in stop)
        args = [str(binary), "-m", str(model), "-c", str(window), "--jinja", "--host", "127.0.0.1",
                "--port", str(self.port), "-t", "2", "--parallel", "1", "--alias", MODEL_NAME,
                "-n", str(MAX_REPLY_TOKENS), *extra]  # fmt: skip
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return self.root + "/v1"

    def wait_ready(self, timeout: float = START_TIMEOUT_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"llama-server exited ({self.proc.returncode}): {self.log_tail()}")
            try:
                with urllib.request.urlopen(self.root + "/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        raise AssertionError(f"llama-server not healthy after {timeout:g} s: {self.log_tail()}")

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-2000:]

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.root + path, timeout=30) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.root + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def count(self, text: str) -> int:
        """`text`'s tokens by the server's own tokenizer."""
        return len(self.post("/tokenize", {"content": text})["tokens"])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()
