"""Running one claimed job: an agent turn on the `cron` lane (or a command), its outcome in the ledger, then
delivery.

`isolated` jobs get a fresh session under `agent:<id>:cron:<jobId>` each run (the
previous transcript is archived); `main` jobs put the message into the agent's main
session as a system event, which starts a turn there at once; `command` jobs run the
operator's command line (`claw.automations.command_run`) and no turn at all.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from claw.automations.delivery import NO_REPLY, parse_delivery, post_webhook, webhook_payload
from claw.automations.job import Job, JobRun
from claw.automations.ledger import Claim, finish_run, set_agent_run, set_delivery
from claw.errors import ClawError
from claw.store.db import Database
from claw.vocab.msg_context import MsgContext
from claw.vocab.run_event import Phase

if TYPE_CHECKING:
    from claw.automations.host import AutomationsHost

log = logging.getLogger(__name__)

CRON_CHANNEL = "cron"

Deliver = Callable[[str, str, str, str], Awaitable["int | None"]]
"""Send a job's reply to `<channel>:<target>`: `(channel, target, text, run_id)` → the outbox id, or None when
no account of that channel is configured (the channels capability's `announce`)."""


class Executor:
    """Turns a `Claim` into an agent run and records what came of it."""

    def __init__(
        self,
        host: Callable[[], AutomationsHost],
        db: Database,
        now: Callable[[], float],
        deliver: Deliver | None = None,
    ) -> None:
        self._db = db
        self._now = now
        self._host = host
        self._to_channel = deliver
        self.agent_runs: dict[str, str] = {}
        """Ledger run id → agent run id, for the runs in flight (so a stopping scheduler can abort them)."""
        self._budget_warnings: dict[str, list[str]] = {}
        """Ledger run id → the `budget` warnings its turn raised, for the job's delivery channel."""

    async def execute(self, claim: Claim, dispatched: asyncio.Future[str] | None = None) -> JobRun:
        """Run the claim to the end; `dispatched` (if given) gets the agent run id once the turn is queued."""
        job, run = claim.job, claim.run
        status, output, error = "error", None, None
        try:
            output = await self._turn(job, run, dispatched, claim.event)
            status = "ok"
        except ClawError as exc:
            error = exc.message
        except Exception as exc:  # a bug: keep the traceback in the log, one line in the ledger
            log.exception("automation %s (run %s) failed", job.id, run.id)
            error = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            agent_run_id = self.agent_runs.pop(run.id, None)
            warnings = self._budget_warnings.pop(run.id, [])
        run = replace(run, agent_run_id=agent_run_id or run.agent_run_id)
        target = parse_delivery(job.delivery)
        delivery_status = _delivery_status(target.kind, status, (output or "").strip())
        keep = self._host().config.automations.keep_runs
        finished = await self._db.awrite(
            lambda c: finish_run(
                c, run, status=status, output=output, error=error, now=self._now(),
                delivery_status=delivery_status, keep=keep,
            )
        )  # fmt: skip
        log.info("automation %s (%s) run %s: %s%s", job.name, job.id, run.id, status, f" ({error})" if error else "")
        if delivery_status == "pending":
            finished = await self._deliver(job, finished, target.target)
        elif delivery_status == "stored" and target.kind == "channel":
            finished = await self._announce(finished, target.channel, target.target, output or "")
        if warnings and target.kind == "channel":
            await self._warn(target.channel, target.target, warnings, run.id)
        return finished

    async def _turn(
        self, job: Job, run: JobRun, dispatched: asyncio.Future[str] | None, event: str | None = None
    ) -> str:
        """`event` (an event trigger's request, already wrapped as untrusted content) follows the job's message;
        a `command` job gets it on stdin instead."""
        if job.session_mode == "command":
            from claw.automations.command_run import run_command

            if dispatched is not None and not dispatched.done():
                dispatched.set_result("")  # no agent run to follow
            timeout = self._host().config.automations.command_timeout_seconds
            return await run_command(job.message, stdin=event, timeout=timeout)
        key = job.session_key
        if job.session_mode == "isolated" and self._host().sessions(job.agent_id).get(key) is not None:
            await self._host().reset_session(key)
        ctx = MsgContext(
            body=job.message,
            body_for_agent=None if event is None else f"{job.message}\n\n{event}",
            channel=CRON_CHANNEL,
            sender_id=f"automation:{job.id}",
            sender_name=job.name,
            agent_id=job.agent_id,
            session_key=key,
            command_authorized=False,  # a job's text is never a slash command, and is not the owner speaking
            system_event=job.session_mode == "main",
        )
        agent_run = await self._host().start_run(ctx, lane="cron")  # no run (NoRunStarted): the error recorded
        self.agent_runs[run.id] = agent_run.id
        if dispatched is not None and not dispatched.done():
            dispatched.set_result(agent_run.id)
        await self._db.awrite(lambda c: set_agent_run(c, run.id, agent_run.id, agent_run.session_key))
        outcome = await agent_run.wait()
        assert outcome is not None
        self._budget_warnings[run.id] = [str(e.data["message"]) for e in agent_run.events if e.phase == Phase.BUDGET]
        if outcome.status == "ok":
            return outcome.text
        raise ClawError(outcome.error or outcome.status)

    async def _deliver(self, job: Job, run: JobRun, url: str) -> JobRun:
        settings = self._host().config.automations
        payload = webhook_payload(job.to_wire(), run.to_wire())
        # Cancelled here, the row stays `pending`; the next start marks it `unknown` rather than send twice.
        delivered, error = await post_webhook(
            url,
            payload,
            timeout=settings.webhook_timeout_seconds,
            retry_delays=settings.webhook_retry_seconds,
            idempotency_key=f"claw-automation-{run.id}",
        )
        status = "delivered" if delivered else "failed"
        await self._db.awrite(lambda c: set_delivery(c, run.id, status, error))
        if not delivered:
            log.warning("automation %s run %s: webhook delivery failed: %s", job.id, run.id, error)
        return replace(run, delivery_status=status, delivery_error=error)

    async def _announce(self, run: JobRun, channel: str, target: str, text: str) -> JobRun:
        """Queue the reply in the channels' outbox (`queued`); without an account for `channel` it stays
        `stored` with the run. The outbox delivers and retries it (`claw outbox ls`)."""
        if self._to_channel is None:  # a gateway built without channels
            return run
        error: str | None
        try:
            queued = await self._to_channel(channel, target, text, run.id)
        except ClawError as exc:
            status, error = "failed", exc.message
        else:
            if queued is None:
                return run
            status, error = "queued", None
        await self._db.awrite(lambda c: set_delivery(c, run.id, status, error))
        return replace(run, delivery_status=status, delivery_error=error)

    async def _warn(self, channel: str, target: str, warnings: list[str], run_id: str) -> None:
        """Send the budget warnings the run raised to the job's channel too, after its reply (whatever became
        of that): whoever reads the job's output there hears of its budget. A failure is only logged."""
        if self._to_channel is None:
            return
        for text in warnings:
            try:
                await self._to_channel(channel, target, f"⚠ {text}", run_id)
            except ClawError as exc:
                log.warning("automation run %s: the budget warning was not delivered: %s", run_id, exc.message)


def _delivery_status(kind: str, status: str, reply: str) -> str | None:
    """A webhook hears of every run (its payload says how it went); a channel gets only real replies."""
    if kind == "none":
        return None
    if status == "ok" and reply == NO_REPLY:
        return "skipped"
    if kind == "webhook":
        return "pending"
    return "stored" if status == "ok" else "skipped"
