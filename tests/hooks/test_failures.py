"""A hook that raises, hangs, calls sys.exit or cannot be imported is logged and never breaks the run."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from claw.gateway.gateway import Gateway
from tests.hooks.conftest import RECORDER, claw, clean_env, local, recorded, write_config, write_hook
from tests.support.fixtures import API_KEY, MODEL, ClawEnv
from tests.support.model_server import text

EVERYTHING = ["gateway:startup", "command", "agent:bootstrap", "message", "run:end"]

RAISES = """
def handle(event):
    if event.name == "agent:bootstrap":
        event.files.clear()  # a change made before failing must not survive
    raise RuntimeError("boom from " + event.name)
"""
HANGS_ASYNC = """
import asyncio

async def handle(event):
    event.messages.append("never said")
    await asyncio.sleep(600)
"""
HANGS_SYNC = """
import time

def handle(event):
    if event.name == "agent:bootstrap":
        event.files.append(("LATE.md", "added by a hook that timed out"))
    time.sleep(600)
"""
EXITS = """
import sys

def handle(event):
    sys.exit(3)
"""
BROKEN_IMPORT = """
raise ImportError("this handler cannot even be imported")
"""


async def test_raising_hanging_and_broken_hooks_do_not_break_the_run(
    claw_env: ClawEnv,
    managed: Path,
    workspace: Path,
    make_gateway: Callable[[], Gateway],
    caplog: pytest.LogCaptureFixture,
) -> None:
    write_config(claw_env.home, "[hooks]\ntimeoutSeconds = 0.5\n")
    write_hook(managed, "a-raises", EVERYTHING, RAISES)
    write_hook(managed, "b-hangs-async", EVERYTHING, HANGS_ASYNC)
    write_hook(managed, "c-hangs-sync", ["agent:bootstrap", "run:end"], HANGS_SYNC)
    write_hook(managed, "d-exits", EVERYTHING, EXITS)
    write_hook(managed, "e-broken", EVERYTHING, BROKEN_IMPORT)
    write_hook(managed, "z-recorder", EVERYTHING, RECORDER)  # runs after the others, sees what they left
    claw_env.server.script(text("Still here."))
    caplog.set_level(logging.INFO, logger="claw.hooks")
    gateway = make_gateway()
    await gateway.start()
    client = local(gateway)

    handle = await client.run("hello")
    assert handle.run_id is not None
    events = [e async for e in client.events(handle.run_id)]
    assert events[-1].data == {"phase": "end", "text": "Still here.", "usage": events[-1].data["usage"]}
    system = claw_env.server.chat_requests[0].messages[0]["content"]
    assert "You are Testy" in system and "LATE.md" not in system
    reply = await client.run("/new")
    assert reply.reply is not None and reply.reply.startswith("New session started") and "never said" not in reply.reply
    started = time.monotonic()
    await gateway.close()
    assert time.monotonic() - started < 10  # waits out the timeouts, never the sleeping threads

    seen = {r["event"] for r in recorded(claw_env.home)}
    assert seen == {"gateway:startup", "message:received", "agent:bootstrap", "run:end", "message:sent", "command:new"}
    boot = next(r for r in recorded(claw_env.home) if r["event"] == "agent:bootstrap")
    assert boot["files"] == [["SOUL.md", "You are Testy, a careful assistant."]]
    logged = caplog.text
    assert "hook a-raises (managed) failed on agent:bootstrap: RuntimeError: boom from agent:bootstrap" in logged
    assert "hook b-hangs-async (managed) timed out after 0.5 s on message:received" in logged
    assert "hook c-hangs-sync (managed) timed out after 0.5 s on agent:bootstrap" in logged
    assert "hook d-exits (managed) failed on run:end: SystemExit: 3" in logged
    assert "hook e-broken (managed) not run for command:new: importing" in logged


def test_a_hook_that_never_returns_does_not_keep_claw_agent_running(claw_env: ClawEnv, tmp_path: Path) -> None:
    home = claw_env.home
    write_config(home, "[hooks]\ntimeoutSeconds = 1\n")
    write_hook(home / "hooks", "stuck", ["run:end"], HANGS_SYNC)
    claw_env.server.script(text("Done despite the hook."))
    env = clean_env(
        home, OPENAI_BASE_URL=claw_env.server.base_url, OPENAI_API_KEY=API_KEY, CLAW_MODEL=MODEL, NO_PROXY="127.0.0.1"
    )
    started = time.monotonic()
    done = claw(env, "agent", "-m", "hi", timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Done despite the hook." in done.stdout
    assert time.monotonic() - started < 30
