"""sessions_spawn end to end: the child runs on its own, its result is stored, then announced to the parent;
a timeout or a failure is announced just the same."""

from __future__ import annotations

import json
from pathlib import Path

from claw.client.local import LocalClient
from tests.gateway.conftest import collect, phases
from tests.subagents.conftest import Roles, eventually, settle, turn_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import CHAT_PATH, RecordedRequest, Reply, error, hang, slow, text, tool_call
from tests.support.session_index import read_index


def child_entry(home: Path, key: str) -> dict:
    index = read_index(home / "agents" / "main" / "sessions")
    return index[key]


def spawn_result(events) -> dict:
    result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result.data["name"] == "sessions_spawn" and not result.data["isError"], result.data
    return json.loads(result.data["result"])


async def test_the_result_is_stored_before_the_parent_hears_of_it(claw_env: ClawEnv, client: LocalClient) -> None:
    stored_when_announced: list[dict] = []
    child_keys: list[str] = []

    def report(request: RecordedRequest) -> Reply:  # runs when the announcement reaches the model
        stored_when_announced.append(child_entry(claw_env.home, child_keys[0])["extra"]["subagent"])
        return text("Your helper worked it out: 42.")

    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Add 2 and 40.", "label": "adder"}), text("Started a helper.")],
        child=[slow("The sum is 42.", delay_per_chunk=0.3)],
        announce=[report],
    )
    handle = await client.run("please delegate the sum")
    events = await collect(client, handle.run_id)
    accepted = spawn_result(events)
    child_keys.append(accepted["childSessionKey"])
    assert accepted["status"] == "accepted" and accepted["childSessionKey"].startswith("agent:main:subagent:")
    assert events[-1].data["text"] == "Started a helper."

    state = await settle(client, handle.run_id)
    # non-blocking: the parent's turn went on while the child was still answering
    assert roles.seen["parent"][1].received_at < roles.seen["child"][0].wait_finished()
    # stored first: when the announcement reached the model, the child's entry already had its result
    assert stored_when_announced[0]["status"] == "ok"
    assert stored_when_announced[0]["result"] == "The sum is 42."
    # announced: the parent's next request carries it as a system event
    announced = turn_message(roles.seen["announce"][0])
    assert announced.startswith('[System event] Subagent "adder" finished.')
    assert "The sum is 42." in announced and accepted["childSessionKey"] in announced
    [child] = state["children"]
    assert child["status"] == "ok" and child["announce"] == "delivered" and child["parentRunId"] == handle.run_id
    report_events = await collect(client, state["announceRunIds"][0])
    assert report_events[-1].data["text"] == "Your helper worked it out: 42."
    history = await client.call("chat.history")
    roles_in_order = [m["role"] for m in history["messages"]]
    assert roles_in_order[-2:] == ["system", "assistant"]
    assert child_entry(claw_env.home, accepted["childSessionKey"])["extra"]["subagent"]["announce"] == "delivered"


async def test_spawn_events_name_the_parent_run(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.default = Roles(parent=[tool_call("sessions_spawn", {"task": "Say hi."}), text("ok")])
    handle = await client.run("spawn one")
    events = await collect(client, handle.run_id)
    spawned = [e.data for e in events if e.stream == "lifecycle" and e.data["phase"] == "subagent"]
    accepted = spawn_result(events)
    assert spawned == [
        {
            "phase": "subagent",
            "state": "spawned",
            "childRunId": accepted["runId"],
            "childSessionKey": accepted["childSessionKey"],
        }
    ]
    child_events = await collect(client, accepted["runId"])
    first = [e.data for e in child_events if e.stream == "lifecycle"][:2]
    assert first[0]["phase"] == "accepted"
    assert first[1]["phase"] == "spawned" and first[1]["parentRunId"] == handle.run_id
    assert first[1]["parentSessionKey"] == "agent:main:main" and first[1]["depth"] == 1
    await settle(client, handle.run_id)


async def test_a_timeout_is_announced(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Think forever.", "timeoutSeconds": 1}), text("waiting")],
        child=[hang("thinking so far")],
    )
    handle = await client.run("slow job")
    events = await collect(client, handle.run_id)
    key = spawn_result(events)["childSessionKey"]
    state = await settle(client, handle.run_id)
    [child] = state["children"]
    assert child["status"] == "timeout" and child["error"] == "timed out after 1 s"
    announced = turn_message(roles.seen["announce"][0])
    assert "timed out" in announced and "Status: timeout" in announced
    assert "did not complete" in announced
    assert child_entry(claw_env.home, key)["extra"]["subagent"]["status"] == "timeout"
    child_events = await collect(client, child["runId"])
    assert phases(child_events)[-1] == "aborted"


async def test_a_failure_is_announced(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Break.", "label": "breaker"}), text("started")],
        child=[error(400, "The child request was malformed.")],
    )
    handle = await client.run("go")
    await collect(client, handle.run_id)
    state = await settle(client, handle.run_id)
    [child] = state["children"]
    assert child["status"] == "error" and "malformed" in child["error"]
    announced = turn_message(roles.seen["announce"][0])
    assert announced.startswith('[System event] Subagent "breaker" failed.')
    assert "Error: model error" in announced and "malformed" in announced


async def test_a_child_outliving_the_gateway_is_noted_for_the_parents_next_turn(claw_env: ClawEnv, make_client) -> None:
    client: LocalClient = make_client()
    claw_env.server.default = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Run long.", "label": "long"}), text("started")],
        child=[hang()],
    )
    handle = await client.run("go")
    await collect(client, handle.run_id)
    await claw_env.server.wait_for_requests_async(3, timeout=20, path=CHAT_PATH)
    await client.close()  # aborts the child; no turn can run any more

    later: LocalClient = make_client()
    claw_env.server.default = None
    claw_env.server.script(text("noted"))
    await collect(later, (await later.run("anything new?")).run_id)
    sent = claw_env.server.chat_requests[-1].messages
    notes = [m["content"] for m in sent if m["role"] == "user" and "Subagent" in m["content"]]
    assert len(notes) == 1 and notes[0].startswith('[System event] Subagent "long" was stopped')
    assert "the gateway shut down" in notes[0]


async def test_stop_in_the_parent_session_stops_its_subagents(claw_env: ClawEnv, client: LocalClient) -> None:
    """/stop stops the session's running children too; each is reported to the parent as stopped."""
    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Count to a million.", "label": "counter"}), text("spawned it")],
        child=[hang()],
        announce=[text("Your counter was stopped.")],
    )
    handle = await client.run("start a helper")
    key = spawn_result(await collect(client, handle.run_id))["childSessionKey"]
    await eventually(lambda: roles.seen["child"], what="the child's model request (it is running)")

    assert (await client.run("/stop")).reply == "Stopped 1 run."

    state = await settle(client, handle.run_id)
    [child] = state["children"]
    assert child["status"] == "aborted" and child["error"] == "aborted" and child["announce"] == "delivered"
    assert phases(await collect(client, child["runId"]))[-1] == "aborted"
    assert child_entry(claw_env.home, key)["extra"]["subagent"]["status"] == "aborted"
    # reported to the parent session as stopped: a system event starts a parent turn on it
    [request] = roles.seen["announce"]
    lines = turn_message(request).splitlines()
    assert lines[0] == '[System event] Subagent "counter" was stopped before it finished.'
    assert lines[1].startswith("Status: aborted · ")
    assert lines[2] == f"Session: {key} (run {child['runId']})"
    assert lines[3] == "Error: aborted"
    assert lines[4:] == ["Tell the user the subagent did not complete, and why; retry only if it makes sense."]
    report = await collect(client, state["announceRunIds"][0])
    assert report[-1].data["text"] == "Your counter was stopped."
    history = (await client.call("chat.history"))["messages"]
    assert [m["role"] for m in history[-2:]] == ["system", "assistant"]
    assert history[-2]["content"].startswith('Subagent "counter" was stopped before it finished.')
