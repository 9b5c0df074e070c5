"""A model endpoint that cannot be reached (or refuses the request) is one line that says where: the
provider, its URL without credentials, and the API key variable to set when no key was found."""

from __future__ import annotations

import socket
import subprocess

from tests.support.fixtures import API_KEY, ClawEnv
from tests.support.processes import run_claw


def closed_port() -> int:
    """A loopback port nothing listens on: bound by the OS to be free, then closed again."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def without(env: dict[str, str], *names: str) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in names}


def the_error(done: subprocess.CompletedProcess[str]) -> str:
    """The one line on stderr of a turn that failed (exit 1, no traceback)."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # said once: not also as a log line
    assert lines[0].startswith("claw: error: ") and "Traceback" not in done.stderr
    return lines[0]


def test_an_unreachable_provider_is_named_with_its_url_and_the_missing_key(claw_env: ClawEnv) -> None:
    port = closed_port()
    (claw_env.home / "config.toml").write_text(f'[providers.x]\nbaseUrl = "http://user:pw@127.0.0.1:{port}/v1"\n')
    env = {**without(claw_env.env, "X_API_KEY"), "CLAW_MODEL": "x/some-model"}
    line = the_error(run_claw(env, "agent", "-m", "hello"))
    assert f"cannot reach provider x at http://***@127.0.0.1:{port}/v1 (" in line
    assert "pw" not in line
    assert line.endswith("no API key is set for x: set X_API_KEY if the endpoint needs one")

    keyed = the_error(run_claw({**env, "X_API_KEY": "sk-x-123"}, "agent", "-m", "hello"))
    assert f"cannot reach provider x at http://***@127.0.0.1:{port}/v1 (" in keyed
    assert "API key" not in keyed and "sk-x-123" not in keyed


def test_the_openai_clients_own_base_url_is_the_one_named(claw_env: ClawEnv) -> None:
    port = closed_port()
    env = {**without(claw_env.env, "OPENAI_API_KEY"), "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"}
    line = the_error(run_claw(env, "agent", "-m", "hello"))
    assert f"cannot reach provider openai at http://127.0.0.1:{port}/v1 (" in line
    assert line.endswith("no API key is set for openai: set OPENAI_API_KEY")


def test_a_refused_request_without_a_key_says_which_variable_to_set(claw_env: ClawEnv) -> None:
    claw_env.server.require_api_key = API_KEY
    (claw_env.home / "config.toml").write_text(f'[providers.y]\nbaseUrl = "{claw_env.server.base_url}"\n')
    env = {**without(claw_env.env, "Y_API_KEY"), "CLAW_MODEL": "y/test-model"}
    line = the_error(run_claw(env, "agent", "-m", "hello"))
    url = claw_env.server.base_url.rstrip("/")
    assert f"provider y at {url} refused the request (401" in line
    assert line.endswith("no API key is set for y: set Y_API_KEY if the endpoint needs one")
