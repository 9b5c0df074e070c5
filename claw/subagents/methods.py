"""RPC methods for subagents (served in-process and over WebSocket):

- `subagents.list {parentRunId?, sessionKey?, activeOnly?}`: running and recent children, oldest first, each
  with status, parent run and session, and its announcement (`announce`, `announceRunId`).
- `subagents.abort {runId}`: stop one child (its end is announced to the parent as `aborted`).
- `subagents.wait {parentRunId, timeoutMs?, known?}`: wait until everything run `parentRunId` started (children,
  their announcement turns, what those spawned) has settled, or an announcement turn not in `known` has begun;
  `{status: settled|pending|timeout, announceRunIds, children}`. `claw agent -m` follows the new
  announcement turns and asks again until `settled`.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from claw.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from claw.gateway.capability import Method
    from claw.gateway.gateway import Gateway
    from claw.subagents.registry import SubagentRegistry

MAX_WAIT_MS = 10 * 60 * 1000


def _text(params: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    value = params.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise UsageError(f"missing or invalid parameter {key!r} (a non-empty string)")
    return value


async def subagents_list(registry: SubagentRegistry, gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    parent_run = _text(params, "parentRunId", required=False)
    session = _text(params, "sessionKey", required=False)
    records = registry.tree(parent_run) if parent_run else registry.all()
    if session:
        records = [r for r in records if session in (r.parent_session_key, r.session_key)]
    if params.get("activeOnly") is True:
        records = [r for r in records if not r.finished]
    return [r.to_wire() for r in records]


async def subagents_abort(registry: SubagentRegistry, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    run_id = _text(params, "runId")
    record = registry.get(run_id or "")
    if record is None:
        raise NotFoundError(f"no subagent run {run_id} (see subagents.list)")
    return {"runId": record.run_id, "aborted": int(gw.abort(record.run_id))}


async def subagents_wait(registry: SubagentRegistry, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    run_id = _text(params, "parentRunId") or ""
    timeout_ms = params.get("timeoutMs", 30_000)
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int | float) or timeout_ms < 0:
        raise UsageError("invalid parameter 'timeoutMs' (milliseconds, a number >= 0)")
    known = params.get("known") or []
    if not isinstance(known, list) or not all(isinstance(k, str) for k in known):
        raise UsageError("invalid parameter 'known' (a list of run ids)")
    return await registry.wait(run_id, known, min(float(timeout_ms), MAX_WAIT_MS) / 1000)


def subagent_methods(registry: SubagentRegistry) -> dict[str, Method]:
    """These methods by wire name, bound to `registry`."""
    return {
        "subagents.list": partial(subagents_list, registry),
        "subagents.abort": partial(subagents_abort, registry),
        "subagents.wait": partial(subagents_wait, registry),
    }
