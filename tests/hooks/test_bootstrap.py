"""`agent:bootstrap` hooks change the bootstrap files the model receives in its system prompt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claw.gateway.gateway import Gateway
from tests.hooks.conftest import local, write_config, write_hook
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call

REWRITE = """
async def handle(event):
    event.files[:] = [(name, content) for name, content in event.files if name != "SOUL.md"]
    event.files.append(("EXTRA.md", "The code word is PINEAPPLE."))
    event.files.insert(0, ("HUGE.md", "x" * 5000 + " END-OF-HUGE"))
"""
SEES_PREVIOUS = """
def handle(event):
    names = [name for name, _ in event.files]
    event.files.append(("SEEN.md", "Earlier hooks left: " + ", ".join(names)))
"""


async def test_bootstrap_hooks_change_the_system_prompt(
    claw_env: ClawEnv, workspace: Path, make_gateway: Callable[[], Gateway]
) -> None:
    (workspace / "AGENTS.md").write_text("Always answer in haiku.\n", encoding="utf-8")
    hooks = workspace / "hooks"
    write_hook(hooks, "rewrite", ["agent:bootstrap"], REWRITE)
    write_hook(hooks, "see-previous", ["agent"], SEES_PREVIOUS)
    write_config(
        claw_env.home,
        """
        [agents.defaults]
        bootstrapMaxChars = 1000
        [hooks.entries.rewrite]
        enabled = true
        [hooks.entries.see-previous]
        enabled = true
        source = "workspace"
        """,
    )
    claw_env.server.script(tool_call("read", {"path": "AGENTS.md"}), text("Done."))
    gateway = make_gateway()
    client = local(gateway)
    handle = await client.run("what is the code word?")
    assert handle.run_id is not None
    events = [e async for e in client.events(handle.run_id)]
    assert events[-1].data["phase"] == "end"

    first, second = claw_env.server.chat_requests
    system = first.messages[0]["content"]
    assert "## EXTRA.md\nThe code word is PINEAPPLE." in system
    assert "## AGENTS.md\nAlways answer in haiku." in system
    assert "You are Testy" not in system  # SOUL.md dropped by the hook
    assert "## SEEN.md\nEarlier hooks left: HUGE.md, AGENTS.md, EXTRA.md" in system  # run in name order
    huge = system.split("## HUGE.md\n", 1)[1].split("\n\n## ", 1)[0]
    assert "truncated HUGE.md" in huge and len(huge) < 1200  # a hook's file is cut to the per-file cap too
    assert system.index("## HUGE.md") < system.index("## AGENTS.md") < system.index("## EXTRA.md")
    assert second.messages[0]["content"] == system  # once per run: every model call of it sees the same files


async def test_workspace_hooks_wait_until_enabled(
    claw_env: ClawEnv, workspace: Path, make_gateway: Callable[[], Gateway]
) -> None:
    write_hook(workspace / "hooks", "rewrite", ["agent:bootstrap"], REWRITE)
    claw_env.server.script(text("Hi."))
    gateway = make_gateway()
    client = local(gateway)
    handle = await client.run("hello")
    assert handle.run_id is not None
    [e async for e in client.events(handle.run_id)]
    system = claw_env.server.chat_requests[0].messages[0]["content"]
    assert "You are Testy" in system and "PINEAPPLE" not in system
