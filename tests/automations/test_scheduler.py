"""The scheduler inside a real gateway, under an injected clock, against the scripted model server."""

from __future__ import annotations

import asyncio
import time

from claw.automations import store
from claw.automations.clock import ManualClock
from claw.automations.job import Job
from claw.automations.schedule import Schedule
from claw.store.db import Database
from tests.automations.conftest import Running, Start, wall
from tests.support.fixtures import ClawEnv
from tests.support.model_server import error, hang, text


async def settle(gw: Running, *, running: int = 0, timeout: float = 60.0) -> None:
    """Wait until nothing more happens before the clock moves again: the scheduler has acted on what the clock
    did and sleeps until a wake-up still ahead (`Scheduler.idle`), and `running` runs are in flight (0: every
    run it started has its outcome in the ledger). Used to prove that nothing (else) fired."""
    deadline = time.monotonic() + timeout
    while not (gw.scheduler.idle and gw.manager.in_flight == running):
        if time.monotonic() > deadline:
            raise AssertionError(f"the scheduler did not settle: {gw.manager.in_flight} runs in flight")
        await asyncio.sleep(0.02)


async def test_a_cron_job_fires_at_its_time_in_its_zone_and_not_before(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 08:59:30", "Europe/Paris"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"cron": "0 9 * * *", "message": "Give me my daily brief", "tz": "Europe/Paris"})
    assert job.next_run_at == wall("2026-06-15 09:00", "Europe/Paris")
    claw_env.server.script(text("Sunny, three meetings."))

    clock.advance(29)  # 08:59:59
    await settle(gw)
    assert claw_env.server.chat_requests == [] and await gw.runs(job.id) == []

    clock.advance(1)  # 09:00:00
    (run,) = await gw.finished_runs(job.id, 1)
    assert run.status == "ok" and run.output == "Sunny, three meetings." and run.trigger == "schedule"
    assert run.slot == wall("2026-06-15 09:00", "Europe/Paris")
    request = claw_env.server.chat_requests[0]
    assert request.messages[-1] == {"role": "user", "content": "Give me my daily brief"}
    assert run.session_key == f"agent:main:cron:{job.id}"
    after = await gw.manager.get(job.id)
    assert after.next_run_at == wall("2026-06-16 09:00", "Europe/Paris") and after.last_status == "ok"


async def test_isolated_runs_start_fresh_each_time(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"every": "1h", "message": "status report", "tz": "UTC"})
    claw_env.server.script(text("first report"), text("second report"))
    clock.advance(3600)
    await gw.finished_runs(job.id, 1)
    clock.advance(3600)
    await gw.finished_runs(job.id, 2)
    second = claw_env.server.chat_requests[1].messages
    assert all("first report" not in str(m.get("content")) for m in second)  # no history from the last run
    archive = claw_env.home / "agents" / "main" / "sessions" / "archive"
    assert archive.is_dir() and any(archive.iterdir())


async def test_main_mode_is_a_system_event_in_the_main_session(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"every": "10m", "message": "Check the oven", "session": "main", "tz": "UTC"})
    claw_env.server.script(text("The oven is fine."))
    clock.advance(600)
    (run,) = await gw.finished_runs(job.id, 1)
    assert run.status == "ok" and run.session_key == "agent:main:main"
    seen = claw_env.server.chat_requests[0].messages[-1]["content"]
    assert "Check the oven" in seen and "system event" in seen.lower()
    entry = gw.gateway.sessions("main").get("agent:main:main")
    assert entry is not None
    lines = gw.gateway.sessions("main").transcript(entry).read()
    assert {"role": "system", "content": "Check the oven"}.items() <= lines[0].items()
    assert lines[-1]["role"] == "assistant" and lines[-1]["content"] == "The oven is fine."


async def test_at_most_one_run_of_a_job_at_a_time(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"every": "1m", "message": "slow job", "tz": "UTC"})
    claw_env.server.script(hang())
    clock.advance(60)
    await claw_env.server.wait_for_requests_async(1, path="/v1/chat/completions")
    clock.advance(60)  # the next slot comes while the first run still hangs
    (skipped,) = await gw.finished_runs(job.id, 1)
    assert skipped.status == "skipped" and "still running" in (skipped.error or "")
    await settle(gw, running=1)  # the hung run only
    assert len(claw_env.server.chat_requests) == 1
    assert [r.status for r in await gw.runs(job.id)] == ["skipped", "running"]
    await gw.gateway.close()  # stopping aborts the hung run, which is recorded as failed
    rows = await gw.runs(job.id)
    assert [r.status for r in rows] == ["skipped", "error"]


async def test_missed_slots_run_once_after_downtime_as_a_catch_up(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    first = await start_gateway(clock)
    job = await first.manager.add({"every": "1m", "message": "tick", "tz": "UTC"})
    await first.gateway.close()
    clock.advance(10 * 60 + 30)  # down for ten and a half minutes: ten slots missed
    claw_env.server.script(text("caught up"))
    second = await start_gateway(clock)
    (run,) = await second.finished_runs(job.id, 1)
    assert run.trigger == "catch-up" and run.missed == 10 and run.status == "ok"
    await settle(second)
    assert len(claw_env.server.chat_requests) == 1 and len(await second.runs(job.id)) == 1
    assert (await second.manager.get(job.id)).next_run_at == wall("2026-06-15 12:11", "UTC")


async def test_errors_back_off_and_a_success_resets(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"every": "10s", "message": "flaky", "tz": "UTC"})
    claw_env.server.script(error(400, "bad request"), error(400, "bad request"), text("fine now"))
    clock.advance(10)
    await gw.finished_runs(job.id, 1)
    await gw.idle()
    state = await gw.manager.get(job.id)
    assert state.consecutive_errors == 1 and state.next_run_at - clock.now() >= 30
    clock.set(state.next_run_at)
    await gw.finished_runs(job.id, 2)
    await gw.idle()
    state = await gw.manager.get(job.id)
    assert state.consecutive_errors == 2 and state.next_run_at - clock.now() >= 60
    clock.set(state.next_run_at)
    runs = await gw.finished_runs(job.id, 3)
    await gw.idle()
    assert [r.status for r in runs] == ["ok", "error", "error"]
    assert "bad request" in (runs[1].error or "")
    state = await gw.manager.get(job.id)
    assert state.consecutive_errors == 0 and state.next_run_at - clock.now() <= 10


async def test_a_one_shot_is_removed_after_it_succeeds(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"at": "20m", "message": "remind me"})
    claw_env.server.script(text("reminder sent"))
    clock.advance(20 * 60)
    await gw.finished_runs(job.id, 1)
    await gw.idle()
    assert [j.id for j in await gw.manager.list()] == []
    assert [r.status for r in await gw.manager.runs(job.id)] == ["ok"]


async def test_an_edited_schedule_replaces_the_old_one_at_once(claw_env: ClawEnv, start_gateway: Start) -> None:
    clock = ManualClock(wall("2026-06-15 08:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"cron": "0 9 * * *", "message": "brief", "tz": "UTC"})
    await gw.manager.update(job.id, {"cron": "30 10 * * *"})
    clock.set(wall("2026-06-15 09:00:01", "UTC"))
    await settle(gw)
    assert claw_env.server.chat_requests == [] and await gw.runs(job.id) == []
    clock.set(wall("2026-06-15 10:30", "UTC"))
    (run,) = await gw.finished_runs(job.id, 1)
    assert run.slot == wall("2026-06-15 10:30", "UTC")


async def test_a_job_added_by_another_process_is_picked_up_without_a_restart(
    claw_env: ClawEnv, start_gateway: Start
) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    await settle(gw)  # asleep until its 60 s limit, and the poller holds a data_version to compare with
    other = Database(gw.manager.paths.gateway_db)  # what `claw automations add` does from its own process
    job = Job(
        id="fromcli1", name="from-cli", agent_id="main", schedule=Schedule("every", "600", "UTC", clock.now()),
        session_mode="isolated", message="added elsewhere", delivery="none", enabled=True,
        created_at=clock.now(), updated_at=clock.now(), next_run_at=clock.now() + 5,
    )  # fmt: skip
    other.write(lambda c: store.insert_job(c, job))
    other.close()
    claw_env.server.script(text("seen"))
    clock.advance(5)  # the scheduler slept with no deadline: only the data_version poll can wake it
    (run,) = await gw.finished_runs(job.id, 1)
    assert run.status == "ok" and claw_env.server.chat_requests[0].messages[-1]["content"] == "added elsewhere"
