"""Every run's turn ends in the transcript: a failed or stopped run closes it, a live one is never taken for dead."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from claw.client.local import LocalClient
from claw.store.sessions import SessionStore
from claw.transcript_entries import PARTIAL
from tests.support.fixtures import ClawEnv
from tests.support.model_server import CHAT_PATH, error, hang, slow, text
from tests.support.waiting import deadline

MAIN = "agent:main:main"


async def _finish(client: LocalClient, run_id: str) -> str:
    phase = ""
    async for event in client.events(run_id):
        if event.is_terminal:
            phase = event.data["phase"]
    return phase


def _sessions_dir(claw_env: ClawEnv) -> Path:
    return claw_env.home / "agents" / "main" / "sessions"


def _transcript_lines(claw_env: ClawEnv) -> list[dict[str, Any]]:
    paths = list(_sessions_dir(claw_env).glob("*.jsonl"))  # none until the run's first entry
    assert len(paths) <= 1
    return [json.loads(line) for path in paths for line in path.read_text().splitlines() if line.strip()]


def _roles(request_messages: list[dict[str, Any]]) -> list[str]:
    return [m["role"] for m in request_messages]


async def test_a_failed_run_closes_its_turn_and_the_next_prompt_says_so(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(error(500, "upstream exploded"), text("better now"))
    assert await _finish(client, (await client.run("first try")).run_id) == "error"
    last = _transcript_lines(claw_env)[-1]
    assert last["role"] == "assistant" and last["interrupted"] is True and last["reason"] == "error"
    assert "upstream exploded" in last["error"]

    assert await _finish(client, (await client.run("second try")).run_id) == "end"
    sent = claw_env.server.chat_requests[-1].body["messages"]
    assert _roles(sent) == ["system", "user", "assistant", "user"]
    assert sent[2]["content"].startswith("[No reply: the run failed: model error:")
    rows = (await client.call("sessions.list"))["sessions"]
    assert rows[0]["messages"] == len([e for e in _transcript_lines(claw_env) if "role" in e]) == 4


async def test_a_run_stopped_before_any_text_closes_its_turn(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(hang(""))
    handle = await client.run("wait for it")
    await claw_env.server.wait_for_requests_async(1, path=CHAT_PATH)
    await client.run("/stop")
    assert await _finish(client, handle.run_id) == "aborted"
    last = _transcript_lines(claw_env)[-1]
    assert (last["role"], last["content"], last["interrupted"], last["reason"]) == ("assistant", "", True, "aborted")


async def test_a_streaming_turn_is_saved_as_it_goes_and_is_not_taken_for_dead(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    reply = "".join(f"[{n:05d}]" * 100 for n in range(12))  # 12 pieces of 700 characters
    claw_env.server.script(slow(reply, delay_per_chunk=0.05, chunk=700))
    handle = await client.run("a long answer")
    async with deadline(20, "a partial entry while the reply streams"):
        while not any(e.get("type") == PARTIAL for e in _transcript_lines(claw_env)):
            await asyncio.sleep(0.02)
    other_process = SessionStore(_sessions_dir(claw_env))  # e.g. `claw sessions show` beside the gateway
    assert await asyncio.to_thread(other_process.close_interrupted_turn, MAIN) is None
    assert await _finish(client, handle.run_id) == "end"

    lines = _transcript_lines(claw_env)
    assert not any(e.get("interrupted") for e in lines)
    assert lines[-1]["role"] == "assistant" and lines[-1]["content"] == reply
    saved = "".join(e["text"] for e in lines if e.get("type") == PARTIAL)
    assert len(saved) >= 4096 and reply.startswith(saved)
    history = await client.call("chat.history")
    assert history["messages"][-1]["content"] == reply
