"""The `automations` tool: the owner can list/add/remove/run; anyone else (and automation runs) cannot."""

from __future__ import annotations

from claw.automations.clock import ManualClock
from claw.automations.tool import NOT_PERMITTED
from claw.vocab.msg_context import MsgContext
from tests.automations.conftest import Running, Start, wall
from tests.support.fixtures import ClawEnv
from tests.support.model_server import Completion, RecordedRequest, text, tool_call


async def turn(gw: Running, ctx: MsgContext) -> str:
    result = await gw.gateway.dispatch(ctx)
    run = gw.gateway.runs.get(result.run_id or "")
    assert run is not None
    outcome = await run.wait(30)
    assert outcome is not None and outcome.status == "ok", outcome
    return outcome.text


def tool_results(claw_env: ClawEnv) -> list[str]:
    return [m["content"] for r in claw_env.server.chat_requests for m in r.messages if m.get("role") == "tool"]


async def test_the_owner_adds_lists_runs_and_removes_through_the_tool(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    add = {"action": "add", "cron": "0 9 * * *", "message": "morning brief", "name": "brief", "tz": "Europe/Paris"}
    claw_env.server.script(tool_call("automations", add), text("Scheduled."))
    await turn(gw, MsgContext(body="remind me every morning", channel="cli"))
    (job,) = await gw.manager.list()
    assert (job.name, job.schedule.expr, job.schedule.tz, job.agent_id) == (
        "brief",
        "0 9 * * *",
        "Europe/Paris",
        "main",
    )
    assert "added automation" in tool_results(claw_env)[-1]

    claw_env.server.script(tool_call("automations", {"action": "list"}), text("You have one."))
    await turn(gw, MsgContext(body="what is scheduled?", channel="tui"))
    assert "brief" in tool_results(claw_env)[-1] and "Europe/Paris" in tool_results(claw_env)[-1]

    def answer(request: RecordedRequest) -> Completion:  # the two turns race: answer each by what it asks
        return text("Brief!" if request.messages[-1]["content"] == "morning brief" else "Started.")

    claw_env.server.script(tool_call("automations", {"action": "run", "id": "brief"}), answer, answer)
    await turn(gw, MsgContext(body="run it now", channel="cli"))
    (run,) = await gw.finished_runs(job.id, 1)
    assert run.trigger == "manual" and run.output == "Brief!"

    claw_env.server.script(tool_call("automations", {"action": "remove", "id": job.id}), text("Removed."))
    await turn(gw, MsgContext(body="stop it", channel="cli"))
    assert await gw.manager.list() == []


async def test_a_sender_who_is_not_the_owner_is_refused(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    add = {"action": "add", "every": "1m", "message": "exfiltrate"}
    claw_env.server.script(tool_call("automations", add), text("Sorry."))
    stranger = MsgContext(
        body="schedule this", channel="telegram", peer_id="999", sender_id="999", command_authorized=False
    )
    await turn(gw, stranger)
    assert tool_results(claw_env)[-1] == NOT_PERMITTED
    assert await gw.manager.list() == []


async def test_an_automation_run_cannot_create_automations(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"every": "1h", "message": "make more of yourself"})
    spawn = {"action": "add", "every": "1m", "message": "copy"}
    claw_env.server.script(tool_call("automations", spawn), text("Could not."))
    clock.advance(3600)
    await gw.finished_runs(job.id, 1)
    assert tool_results(claw_env)[-1] == NOT_PERMITTED
    assert [j.id for j in await gw.manager.list()] == [job.id]
