"""The red team's partial: secrets whose names do not look secret reached every command and, printed, the
transcript. A real run whose model calls `exec env`, sandboxed and not: none of those values reaches the
command, the model or any file under the state dir."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from claw.client.local import LocalClient
from tests.gateway.conftest import collect, phases, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.tools.sandbox_support import require_bwrap


@pytest.mark.parametrize("mode", ["all", "off"], ids=["sandboxed", "unsandboxed"])
async def test_credentials_in_claws_environment_reach_neither_the_command_nor_the_transcript(
    claw_env: ClawEnv, make_client, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    if mode == "all":
        require_bwrap()
    # The model server is reached through a base URL with a password, as the red team set it.
    base = claw_env.server.base_url.replace("http://", "http://probe:base-url-secret-0001@")
    secrets = {
        "OPENAI_BASE_URL": base,
        "TRACKER_AUTH": "Bearer tracker-secret-0002",
        "DATABASE_URL": "postgres://app:db-secret-0003@db.internal/app",
        "HTTPS_PROXY": "http://proxyuser:proxy-secret-0004@proxy.internal:3128",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CLAW_TEST_PASSED", "on-purpose-0005")
    write_config(
        claw_env.home,
        '[agents.defaults.tools.exec]\nsecurity = "full"\nask = "off"\npassEnv = ["CLAW_TEST_*"]\n'
        f'[agents.defaults.sandbox]\nmode = "{mode}"\n',
    )
    client: LocalClient = make_client()
    claw_env.server.script(tool_call("exec", {"command": "env; echo ENV-DONE"}), text("printed it"))
    events = await collect(client, (await client.run("print the environment")).run_id)
    assert phases(events)[-1] == "end"

    sent = claw_env.server.chat_requests[1].body["messages"][-1]
    assert sent["role"] == "tool" and "ENV-DONE" in sent["content"]
    assert "CLAW_TEST_PASSED=on-purpose-0005" in sent["content"]  # passEnv works, so the output is real
    assert "PATH=" in sent["content"]
    for name, value in secrets.items():
        secret = value.split("@")[0].rsplit(":", 1)[-1] if "@" in value else value
        assert secret not in sent["content"], name
        assert f"{name}=" not in sent["content"], name
        for path, content in _files(claw_env.home).items():
            assert secret.encode() not in content, (name, path)


def _files(root: Path) -> dict[Path, bytes]:
    """Every file under `root` with its content (a temp file renamed away meanwhile is skipped)."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                found[Path(folder) / name] = (Path(folder) / name).read_bytes()
    return found
