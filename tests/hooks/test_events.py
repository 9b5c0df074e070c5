"""Every hook event fires exactly once, where it should, with its documented payload."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from claw.gateway.gateway import Gateway
from claw.vocab.msg_context import MsgContext
from tests.hooks.conftest import RECORDER, local, recorded, write_hook
from tests.support.fixtures import MODEL, ClawEnv
from tests.support.model_server import text

ALL = ["gateway:startup", "command", "agent:bootstrap", "message", "run:end"]


async def test_each_event_fires_once_with_its_payload(
    claw_env: ClawEnv, managed: Path, workspace: Path, make_gateway: Callable[[], Gateway]
) -> None:
    write_hook(managed, "recorder", ALL, RECORDER)
    claw_env.server.script(text("Hello there!"))
    gateway = make_gateway()
    await gateway.start()
    client = local(gateway)

    handle = await client.run("hi")
    assert handle.run_id is not None
    events = [e async for e in client.events(handle.run_id)]
    assert events[-1].data["phase"] == "end"
    new = await client.run("/new")
    stop = await client.run("/stop")
    assert new.status == stop.status == "command"
    await gateway.close()  # waits for the background hooks

    records = recorded(claw_env.home)
    counts = Counter(r["event"] for r in records)
    assert counts == {
        "gateway:startup": 1,
        "message:received": 3,
        "agent:bootstrap": 1,
        "run:end": 1,
        "message:sent": 1,
        "command:new": 1,
        "command:stop": 1,
    }
    by = {r["event"]: r for r in records}
    key = "agent:main:main"

    startup = by["gateway:startup"]
    assert startup["agentIds"] == ["main"] and startup["workspace"] == str(workspace)
    assert startup["stateDir"] == str(claw_env.home) and startup["sessionKey"] is None

    received = [r for r in records if r["event"] == "message:received"]
    assert [r["content"] for r in received] == ["hi", "/new", "/stop"]
    assert all(r["sessionKey"] == key and r["channel"] == "cli" and r["senderId"] == "local" for r in received)
    assert all(r["lane"] == "main" and r["systemEvent"] is False for r in received)

    boot = by["agent:bootstrap"]
    assert boot["runId"] == handle.run_id and boot["agentId"] == "main" and boot["sessionKey"] == key
    assert boot["files"] == [["SOUL.md", "You are Testy, a careful assistant."]]

    end = by["run:end"]
    assert (end["runId"], end["status"], end["text"], end["error"]) == (handle.run_id, "ok", "Hello there!", None)
    assert end["message"] == "hi" and end["lane"] == "main" and end["startedAt"] <= end["endedAt"]

    sent = by["message:sent"]
    assert (sent["content"], sent["channel"], sent["to"], sent["success"]) == ("Hello there!", "cli", "local", True)
    assert sent["runId"] == handle.run_id

    cmd = by["command:new"]
    assert cmd["command"] == "new" and cmd["sessionKey"] == key and cmd["channel"] == "cli"
    previous, current = cmd["previousSession"], cmd["session"]
    assert previous["sessionId"] != current["sessionId"]
    assert cmd["previousTranscript"] == str(
        claw_env.home / "agents" / "main" / "sessions" / "archive" / f"{previous['sessionId']}.jsonl"
    )
    assert "model" not in cmd  # the model handle is for handlers, not part of the payload
    assert by["command:stop"]["previousSession"] is None


async def test_duplicates_and_idempotent_retries_fire_nothing(
    claw_env: ClawEnv, managed: Path, make_gateway: Callable[[], Gateway]
) -> None:
    write_hook(managed, "recorder", ["message:received"], RECORDER)
    gateway = make_gateway()
    ctx = MsgContext(
        body="/status", channel="telegram", peer_id="42", sender_id="42", message_id="m1", command_authorized=True
    )
    first = await gateway.dispatch(ctx)
    again = await gateway.dispatch(ctx)
    assert (first.status, again.status) == ("command", "duplicate")
    await gateway.dispatch(MsgContext(body="/status", command_authorized=True), idempotency_key="k1")
    await gateway.dispatch(MsgContext(body="/status", command_authorized=True), idempotency_key="k1")
    await gateway.close()
    received = recorded(claw_env.home)  # two sessions: their hooks run side by side, in no set order
    assert sorted((r["channel"], r["senderId"], r["messageId"] or "") for r in received) == [
        ("cli", "local", ""),
        ("telegram", "42", "m1"),
    ]


async def test_failed_and_aborted_runs_end_with_their_outcome(
    claw_env: ClawEnv, managed: Path, make_gateway: Callable[[], Gateway]
) -> None:
    from tests.support.model_server import error

    write_hook(managed, "recorder", ["run:end", "message:sent"], RECORDER)
    claw_env.server.script(error(400, "bad request for this test"))
    gateway = make_gateway()
    client = local(gateway)
    handle = await client.run("fail please")
    assert handle.run_id is not None
    [e async for e in client.events(handle.run_id)]
    await gateway.close()
    [end] = recorded(claw_env.home)  # no message:sent for a run without a reply
    assert end["event"] == "run:end" and end["status"] == "error" and "bad request for this test" in end["error"]
    assert end["text"] == "" and claw_env.server.chat_requests[0].model == MODEL


async def test_channels_whose_adapter_reports_delivery_get_no_second_message_sent(
    claw_env: ClawEnv, managed: Path, make_gateway: Callable[[], Gateway]
) -> None:
    from claw.gateway.hook_points import message_sent

    write_hook(managed, "recorder", ["message:sent"], RECORDER)
    claw_env.server.script(text("pong"))
    gateway = make_gateway()
    gateway.hooks.adapter_delivers("telegram")
    result = await gateway.dispatch(MsgContext(body="ping", channel="telegram", peer_id="7", sender_id="7"))
    assert result.run_id is not None
    await gateway.runs.get(result.run_id).wait(10)  # type: ignore[union-attr]
    message_sent(gateway, channel="telegram", to="7", content="pong", success=False, error="HTTP 502")
    await gateway.close()
    [sent] = recorded(claw_env.home)
    assert (sent["channel"], sent["to"], sent["success"], sent["error"]) == ("telegram", "7", False, "HTTP 502")


SLOW_FIRST = """
import asyncio
import json

async def handle(event):
    await asyncio.sleep(0.3 if event.content.endswith("first") else 0)
    with open(event.state_dir / "hook-events.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(event.to_json()) + "\\n")
"""


async def test_background_events_of_one_session_keep_their_order(
    claw_env: ClawEnv, managed: Path, make_gateway: Callable[[], Gateway]
) -> None:
    write_hook(managed, "slow-first", ["message:received"], SLOW_FIRST)
    gateway = make_gateway()
    for body in ("/status first", "/status second", "/status third"):
        await gateway.dispatch(MsgContext(body=body, command_authorized=True))
    await gateway.dispatch(MsgContext(body="/status other", session_key="other", command_authorized=True))
    await gateway.close()
    contents = [r["content"] for r in recorded(claw_env.home)]
    assert contents[0] == "/status other"  # another session does not wait behind the slow hook
    assert contents[1:] == ["/status first", "/status second", "/status third"]


async def test_an_event_no_hook_handles_starts_no_background_task(
    claw_env: ClawEnv, managed: Path, make_gateway: Callable[[], Gateway], monkeypatch
) -> None:
    write_hook(managed, "on-commands", ["command:new"], RECORDER)
    gateway = make_gateway()
    started: list[str] = []
    background = gateway.hooks._background

    def recording(event, *args):
        started.append(event.name)
        return background(event, *args)

    monkeypatch.setattr(gateway.hooks, "_background", recording)
    await gateway.dispatch(MsgContext(body="/status", command_authorized=True))  # message:received: no hook
    await gateway.dispatch(MsgContext(body="/new", command_authorized=True))
    await gateway.close()
    assert started == []  # command:new is awaited in place; message:received had nothing to run
    assert [r["event"] for r in recorded(claw_env.home)] == ["command:new"]
