"""Delivery of a job's reply: a webhook receiver the test runs on 127.0.0.1, channel targets, NO_REPLY."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from aiohttp import web

from claw.automations import store
from claw.automations.clock import ManualClock
from claw.automations.delivery import parse_delivery
from claw.errors import UsageError
from tests.automations.conftest import Start, wall
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text


@dataclass
class Receiver:
    """A webhook endpoint answering with `statuses` in turn (then 200), recording every request."""

    statuses: list[int] = field(default_factory=list)
    received: list[tuple[dict[str, str], dict[str, Any]]] = field(default_factory=list)
    url: str = ""

    async def handle(self, request: web.Request) -> web.Response:
        self.received.append((dict(request.headers), json.loads(await request.read())))
        status = self.statuses.pop(0) if self.statuses else 200
        return web.Response(status=status, text="ok" if status == 200 else "nope")


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    found = Receiver()
    app = web.Application()
    app.router.add_post("/hook", found.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    found.url = f"http://127.0.0.1:{runner.addresses[0][1]}/hook"
    yield found
    await runner.cleanup()


async def test_webhook_gets_the_reply_as_json_retried_after_a_5xx(
    claw_env: ClawEnv, start_gateway: Start, receiver: Receiver
) -> None:
    receiver.statuses = [500, 503]
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"every": "1h", "message": "digest", "deliver": f"webhook:{receiver.url}", "tz": "UTC"})
    claw_env.server.script(text("Here is your digest."))
    clock.advance(3600)
    await gw.finished_runs(job.id, 1)
    await gw.idle()
    (run,) = await gw.runs(job.id)
    assert run.delivery_status == "delivered" and run.delivery_error is None
    assert len(receiver.received) == 3
    bodies = [body for _headers, body in receiver.received]
    assert bodies[0] == bodies[2]
    assert bodies[-1]["output"] == "Here is your digest." and bodies[-1]["status"] == "ok"
    assert bodies[-1]["jobId"] == job.id and bodies[-1]["runId"] == run.agent_run_id
    keys = {headers["Idempotency-Key"] for headers, _body in receiver.received}
    assert keys == {f"claw-automation-{run.id}"}  # the receiver can tell a retry from a new delivery


async def test_webhook_gives_up_after_its_retries_and_says_why(
    claw_env: ClawEnv, start_gateway: Start, receiver: Receiver
) -> None:
    receiver.statuses = [502, 502, 502, 502, 502]
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"every": "1h", "message": "digest", "deliver": f"webhook:{receiver.url}"})
    clock.advance(3600)
    await gw.finished_runs(job.id, 1)
    await gw.idle()
    (run,) = await gw.runs(job.id)
    assert len(receiver.received) == 4  # the first try and three retries
    assert run.status == "ok" and run.delivery_status == "failed" and "HTTP 502" in (run.delivery_error or "")


async def test_webhook_refusal_is_not_retried(claw_env: ClawEnv, start_gateway: Start, receiver: Receiver) -> None:
    receiver.statuses = [404]
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    job = await gw.manager.add({"every": "1h", "message": "digest", "deliver": f"webhook:{receiver.url}"})
    clock.advance(3600)
    await gw.finished_runs(job.id, 1)
    await gw.idle()
    (run,) = await gw.runs(job.id)
    assert len(receiver.received) == 1 and run.delivery_status == "failed"


async def test_a_target_whose_account_is_gone_is_stored_with_the_run_and_no_reply_is_not_delivered(
    claw_env: ClawEnv, start_gateway: Start
) -> None:
    clock = ManualClock(wall("2026-06-15 12:00", "UTC"))
    gw = await start_gateway(clock)
    # Stored while a Telegram account was configured, which is gone now (a new job would be refused).
    job = replace(await gw.manager.add({"every": "1h", "message": "digest"}), delivery="telegram:12345")
    await gw.manager.db.awrite(lambda c: store.save_job(c, job))
    claw_env.server.script(text("For the chat."), text("NO_REPLY"))
    clock.advance(3600)
    await gw.finished_runs(job.id, 1)
    clock.advance(3600)
    await gw.finished_runs(job.id, 2)
    await gw.idle()
    second, first = await gw.runs(job.id)
    assert (first.delivery, first.delivery_status, first.output) == ("telegram:12345", "stored", "For the chat.")
    assert second.delivery_status == "skipped"


@pytest.mark.parametrize(
    "bad",
    ["webhook:ftp://example.com/x", "webhook:", "webhook:http://", "telegram", "tele gram:1", "chan:"],
)
def test_bad_delivery_targets_are_refused(bad: str) -> None:
    with pytest.raises(UsageError, match="invalid --deliver"):
        parse_delivery(bad)
