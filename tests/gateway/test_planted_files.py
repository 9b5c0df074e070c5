"""The red team's repros of issue 32, breaks 1-3, as whole turns: what the agent plants from a sandboxed exec is
never read, waited on or run by claw outside the sandbox.

Each test runs twice: with the bubblewrap sandbox and with `sandbox.mode = "off"` (claw's fallback where bwrap
cannot run), because the rule has to hold in claw's own readers, not in the sandbox. The model is the scripted
server: its exec calls plant the files, and the next request it receives is where a leak would show.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from claw.client.local import LocalClient
from claw.errors import ClawError
from tests.gateway.conftest import collect, phases, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import run_claw
from tests.tools.sandbox_support import require_bwrap

SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- planted-secret-7f3a"
GATEWAY_TOKEN = "gw-token-planted-9c41"
FULL_EXEC = '[agents.defaults.tools.exec]\nsecurity = "full"\nask = "off"\n'


@pytest.fixture(params=["bwrap", "off"])
def sandbox(request: pytest.FixtureRequest, claw_env: ClawEnv) -> str:
    """The sandbox mode the agent's exec runs in; config.toml written for it."""
    mode = request.param
    if mode == "bwrap":
        require_bwrap()
        write_config(claw_env.home, FULL_EXEC)
    else:
        write_config(claw_env.home, FULL_EXEC + '[agents.defaults.sandbox]\nmode = "off"\n')
    return mode


@pytest.fixture
def secrets(claw_env: ClawEnv, tmp_path: Path) -> tuple[Path, Path]:
    """A private key outside the workspace and the gateway token in the state dir."""
    key = tmp_path / "user-home" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text(SSH_KEY + "\n", encoding="utf-8")
    token = claw_env.home / "gateway.token"
    token.write_text(GATEWAY_TOKEN + "\n", encoding="utf-8")
    token.chmod(0o600)
    return key, token


def _results(events: list) -> list[dict]:
    return [e.data for e in events if e.stream == "tool" and e.data["phase"] == "result"]


async def _exec_turn(claw_env: ClawEnv, client: LocalClient, command: str) -> str:
    """One turn whose model runs `command` with exec; the tool's result text."""
    claw_env.server.script(tool_call("exec", {"command": command}), text("done"))
    events = await collect(client, (await client.run("set things up")).run_id)
    assert phases(events)[-1] == "end"
    [result] = _results(events)
    assert not result["isError"], result["result"]
    return result["result"]


async def test_links_out_of_the_workspace_are_never_followed(
    claw_env: ClawEnv, sandbox: str, secrets: tuple[Path, Path], make_client: Callable[[], LocalClient]
) -> None:
    key, token = secrets
    client = make_client()
    workspace = client.gateway.workspace("main")
    (workspace / "USER.md").write_text("Name: Ada\n", encoding="utf-8")
    out = await _exec_turn(claw_env, client, f"ln -sf {key} USER.md; ln -sf {token} IDENTITY.md; echo planted")
    assert "planted" in out
    assert os.readlink(workspace / "USER.md") == str(key)  # the exec did plant both links
    assert os.readlink(workspace / "IDENTITY.md") == str(token)

    claw_env.server.script(text("hello again"))
    events = await collect(client, (await client.run("who am I?")).run_id)
    assert phases(events)[-1] == "end"
    sent = json.dumps(claw_env.server.chat_requests[-1].body)
    assert "You are Testy" in sent  # the prompt still has the bootstrap files that are regular
    assert "planted-secret" not in sent and GATEWAY_TOKEN not in sent
    every = "".join(json.dumps(r.body) for r in claw_env.server.chat_requests)
    assert "planted-secret" not in every and GATEWAY_TOKEN not in every

    for name in ("USER.md", "IDENTITY.md"):
        with pytest.raises(ClawError, match="link that leads out of the workspace") as refused:
            await client.call("workspace.read", name=name)
        assert name in str(refused.value) and "planted-secret" not in str(refused.value)


async def test_a_planted_fifo_never_blocks_a_turn_or_the_doctor(
    claw_env: ClawEnv, sandbox: str, make_client: Callable[[], LocalClient], caplog: pytest.LogCaptureFixture
) -> None:
    client = make_client()
    workspace = client.gateway.workspace("main")
    await _exec_turn(claw_env, client, "rm -f USER.md; mkfifo USER.md; echo made")
    assert stat.S_ISFIFO(os.lstat(workspace / "USER.md").st_mode)

    claw_env.server.script(text("still here"))
    with caplog.at_level(logging.WARNING):
        async with asyncio.timeout(30):  # before the fix: blocked forever in open()
            events = await collect(client, (await client.run("are you there?")).run_id)
    assert phases(events)[-1] == "end"
    assert "You are Testy" in json.dumps(claw_env.server.chat_requests[-1].body)
    warned = [r.getMessage() for r in caplog.records if "USER.md" in r.getMessage()]
    assert any("skipped bootstrap file" in line and "not a regular file" in line for line in warned), warned

    with pytest.raises(ClawError, match="not a regular file"):
        async with asyncio.timeout(30):
            await client.call("workspace.read", name="USER.md")

    began = time.monotonic()
    done = await asyncio.to_thread(run_claw, claw_env.env, "doctor", "--json", timeout=60)
    assert time.monotonic() - began < 60
    report = json.loads(done.stdout)
    [check] = [c for c in report["checks"] if c["name"] == "workspace"]
    assert "skipped USER.md" in check["detail"] and "not a regular file" in check["detail"], check


HANDLER = textwrap.dedent(
    """
    def handle(event):
        with open(event.state_dir / "hook-marks.txt", "a", encoding="utf-8") as out:
            out.write("{mark}\\n")
    """
)


def _marks(home: Path) -> list[str]:
    path = home / "hook-marks.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


@pytest.fixture
def hook_dir(claw_env: ClawEnv, workspace: Path) -> Path:
    """A workspace hook on `agent:bootstrap` that marks each run with `original`."""
    directory = workspace / "hooks" / "marker"
    directory.mkdir(parents=True)
    manifest = "---\nname: marker\ndescription: Marks each run.\nevents: [agent:bootstrap]\n---\n"
    (directory / "HOOK.md").write_text(manifest, encoding="utf-8")
    (directory / "handler.py").write_text(HANDLER.format(mark="original"), encoding="utf-8")
    return directory


async def test_the_model_cannot_rewrite_an_enabled_hook(
    claw_env: ClawEnv, sandbox: str, hook_dir: Path, make_client: Callable[[], LocalClient]
) -> None:
    client = make_client()
    row = await client.call("hooks.enable", name="marker")
    assert row["enabled"] is True
    handler = hook_dir / "handler.py"
    original = handler.read_text(encoding="utf-8")
    evil = HANDLER.format(mark="evil")

    # The write tool, with nobody to approve: refused, naming the file.
    claw_env.server.script(tool_call("write", {"path": "hooks/marker/handler.py", "content": evil}), text("ok"))
    events = await collect(client, (await client.run("improve the hook")).run_id)
    [result] = _results(events)
    assert result["isError"] and "refused" in result["result"] and "hooks/marker/handler.py" in result["result"]
    # The edit tool too.
    edit = {"path": "hooks/marker/handler.py", "oldText": "original", "newText": "evil"}
    claw_env.server.script(tool_call("edit", edit), text("ok"))
    events = await collect(client, (await client.run("improve the hook")).run_id)
    [result] = _results(events)
    assert result["isError"] and "refused" in result["result"] and "hooks/marker/handler.py" in result["result"]
    assert handler.read_text(encoding="utf-8") == original
    assert _marks(claw_env.home) == ["original", "original"]

    # exec: the sandbox shows hooks/ read-only; without one, the file changes but the pinned hash keeps the
    # changed code from running: the code that was enabled still runs.
    await _exec_turn(claw_env, client, f"cat > hooks/marker/handler.py <<'EOF'\n{evil}EOF\necho tried")
    changed = handler.read_text(encoding="utf-8") != original
    assert changed == (sandbox == "off")
    [row] = [r for r in await client.call("hooks.list") if r["name"] == "marker"]
    assert row["status"] == ("changed" if changed else "enabled"), row
    if changed:  # `claw hooks ls` says so, naming the file and the command that approves it
        assert str(handler) in row["reason"] and "claw hooks enable marker" in row["reason"]
    claw_env.server.script(text("hi"))
    await collect(client, (await client.run("hello")).run_id)
    assert "evil" not in _marks(claw_env.home)
    assert _marks(claw_env.home)[-1] == "original"

    # A new process never imported the enabled code: with the file changed, the hook does not run at all.
    await client.close()
    before = len(_marks(claw_env.home))
    claw_env.server.script(text("hi"))
    done = await asyncio.to_thread(run_claw, claw_env.env, "agent", "-m", "hello")
    assert done.returncode == 0, done.stderr
    assert _marks(claw_env.home)[before:] == ([] if changed else ["original"])


async def test_an_approved_write_names_the_file(
    claw_env: ClawEnv, sandbox: str, hook_dir: Path, make_client: Callable[[], LocalClient]
) -> None:
    client = make_client()
    await client.call("hooks.enable", name="marker")
    asked = []

    async def approve(request):
        asked.append(request)
        return "allow-once"

    client.gateway.approvals.set_approver(approve)
    new = HANDLER.format(mark="updated")
    claw_env.server.script(tool_call("write", {"path": "hooks/marker/handler.py", "content": new}), text("ok"))
    events = await collect(client, (await client.run("update the hook")).run_id)
    [result] = _results(events)
    assert not result["isError"], result["result"]
    [request] = asked
    assert request.tool == "write" and str((hook_dir / "handler.py").resolve()) in request.command
    assert (hook_dir / "handler.py").read_text(encoding="utf-8") == new
    # Written with approval, but run only once the user enables the hook again (the pin names the old code).
    assert "updated" not in _marks(claw_env.home)
    await client.call("hooks.enable", name="marker")
    claw_env.server.script(text("hi"))
    await collect(client, (await client.run("hello")).run_id)
    assert _marks(claw_env.home)[-1] == "updated"
