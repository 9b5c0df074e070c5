"""A model the user names is the model that answers, or the turn fails with its error; failover
belongs to the configured chain only (issue: `claw agent --model ollama/llama3` answered with another
model and exited 0)."""

from __future__ import annotations

import socket

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _config(claw_env: ClawEnv, extra: str = "") -> None:
    port = _closed_port()
    (claw_env.home / "config.toml").write_text(
        f'[providers.dead]\nbaseUrl = "http://127.0.0.1:{port}/v1"\napiKey = "none"\n{extra}', encoding="utf-8"
    )


def test_an_explicit_model_that_fails_is_not_replaced(claw_env: ClawEnv) -> None:
    _config(claw_env, '[agents.defaults.model]\nprimary = "test-model"\nfallbacks = ["test-model"]\n')
    claw_env.server.script(text("answered by the wrong model"))
    done = run_claw(claw_env.env, "agent", "--model", "dead/llama3", "-m", "hi", timeout=60)
    assert done.returncode != 0
    assert "trying" not in done.stderr and "answered by the wrong model" not in done.stdout
    assert "dead/llama3" in done.stderr and "Traceback" not in done.stderr
    assert claw_env.server.chat_requests == []


def test_the_configured_chain_still_fails_over(claw_env: ClawEnv) -> None:
    env = {k: v for k, v in claw_env.env.items() if k != "CLAW_MODEL"}
    _config(claw_env, '[agents.defaults.model]\nprimary = "dead/llama3"\nfallbacks = ["test-model"]\n')
    claw_env.server.script(text("answered by the fallback"))
    done = run_claw(env, "agent", "-m", "hi", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "answered by the fallback"
    assert "dead/llama3 failed" in done.stderr and "trying test-model" in done.stderr
