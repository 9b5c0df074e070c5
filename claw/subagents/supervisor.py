"""One task per child: wait for it to start and end (stopping it at its timeout), store what it produced
in its session entry, and only then announce it to the parent session."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from claw.gateway.runs import Run, RunOutcome
from claw.subagents.announce import announce, announcement, note
from claw.subagents.record import SUBAGENT_KEY, SubagentRecord
from claw.vocab.run_event import Phase, Stream
from claw.vocab.session_keys import agent_of

if TYPE_CHECKING:
    from claw.subagents.host import SubagentsHost
    from claw.subagents.registry import SubagentRegistry

log = logging.getLogger(__name__)

ABORT_GRACE_SECONDS = 30.0


async def supervise(host: SubagentsHost, registry: SubagentRegistry, record: SubagentRecord) -> None:
    """See the module docstring. Never raises (but honours cancellation)."""
    run = host.find_run(record.run_id)
    try:
        if run is None:
            record = registry.update(record.run_id, status="error", error="the run vanished", ended_at=time.time())
        else:
            record = await _watch(host, registry, record, run)
        await _store(host, record)
    except Exception as exc:  # a bug: the parent must still hear that something went wrong
        log.exception("supervising subagent %s failed", record.run_id)
        record = registry.update(record.run_id, status="error", error=f"internal error: {exc}", ended_at=time.time())
    log.info("subagent %s (%s) ended: %s", record.run_id, record.session_key, record.status)
    try:
        state = await announce(host, registry, record)
    except Exception:  # a bug: still leave the parent a note
        log.exception("announcing subagent %s failed", record.run_id)
        state = await note(host, record, announcement(record))
    record = registry.get(record.run_id) or record
    await _store(host, replace(record, announce=state))  # stored first, then the registry calls it settled
    registry.update(record.run_id, announce=state)


async def _watch(host: SubagentsHost, registry: SubagentRegistry, record: SubagentRecord, run: Run) -> SubagentRecord:
    if await _started(host, run):
        record = registry.update(record.run_id, status="running", started_at=run.started_at or time.time())
        await _store(host, record)
        outcome = await run.wait(record.timeout_s)
        if outcome is None:
            log.info("subagent %s timed out after %g s; stopping it", record.run_id, record.timeout_s)
            host.abort(run.id)
            await run.wait(ABORT_GRACE_SECONDS)
            return registry.update(
                record.run_id,
                status="timeout",
                error=f"timed out after {record.timeout_s:g} s",
                ended_at=time.time(),
                result=_partial(host, record),
                usage=_usage(run.outcome),
            )
    outcome = await run.wait()
    assert outcome is not None
    status = outcome.status
    error = outcome.error
    if status == "error" and (error or "").startswith("run timed out"):
        status = "timeout"
    elif status == "aborted":
        error = "the gateway shut down" if host.closing else (outcome.detail.get("reason") or "aborted")
    return registry.update(
        record.run_id,
        status=status,
        error=error if status != "ok" else None,
        result=outcome.text,
        usage=_usage(outcome),
        ended_at=outcome.ended_at or time.time(),
    )


async def _started(host: SubagentsHost, run: Run) -> bool:
    """Wait until the run starts (True) or ends without starting (False)."""
    replay, sub = host.subscribe_run(run.id)
    async with sub:
        for event in replay:
            if event.stream == Stream.LIFECYCLE and event.phase == Phase.START:
                return True
            if event.is_terminal:
                return False
        async for event in sub:
            if event.stream == Stream.LIFECYCLE and event.phase == Phase.START:
                return True
            if event.is_terminal:
                return False
    return run.started_at is not None


def _usage(outcome: RunOutcome | None) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((outcome.usage if outcome else {}).items()))


def _partial(host: SubagentsHost, record: SubagentRecord) -> str:
    """The last assistant text the child wrote before it was stopped (may be empty)."""
    store = host.sessions(record.agent_id)
    entry = store.get(record.session_key)
    if entry is None:
        return ""
    for line in reversed(store.transcript(entry).tail(20)):
        if line.get("role") == "assistant" and line.get("content"):
            return str(line["content"])
    return ""


async def _store(host: SubagentsHost, record: SubagentRecord) -> None:
    """Keep the record in the child's session entry (before the announcement, and its outcome after)."""
    try:
        store = host.sessions(agent_of(record.session_key))
        await asyncio.to_thread(store.merge_extra, record.session_key, {SUBAGENT_KEY: record.to_entry()})
    except Exception:
        log.exception("could not store the result of subagent %s", record.run_id)
