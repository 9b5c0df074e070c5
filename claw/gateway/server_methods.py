"""RPC methods the network face needs, served to every client (in-process ones too):

- `agent.follow {runId}`: attach to an existing run. In-process it only checks the run
  exists; over WebSocket the run's events follow (replayed from the first), then a
  final `res` with the outcome, exactly as after `agent`.
- `exec.approval.list`: the exec questions waiting for an answer.
- `exec.approval.resolve {id, decision}`: answer one (`allow-once`, `allow-always`, `deny`).

Installed as an extension (see `claw.gateway.extensions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from claw.errors import NotFoundError, UsageError
from claw.gateway.methods import method
from claw.tools.exec_approvals import DECISIONS

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway


def install(gateway: Gateway) -> None:
    """Nothing per gateway: the methods registered when this module was imported."""


def _text(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise UsageError(f"missing or invalid parameter {key!r} (a non-empty string)")
    return value


@method("agent.follow")
async def agent_follow(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    run_id = _text(params, "runId")
    run = gw.runs.get(run_id)
    if run is None:
        raise NotFoundError(f"unknown run {run_id}")
    status = "finished" if run.finished else "accepted"
    return {"status": status, "runId": run.id, "agentId": run.agent_id, "sessionKey": run.session_key}


@method("exec.approval.list")
async def approval_list(gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"id": r.id, "agentId": r.agent_id, "sessionKey": r.session_key, "command": r.command, "cwd": r.cwd}
        for r in gw.approvals.pending()
    ]


@method("exec.approval.resolve")
async def approval_resolve(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    request_id = _text(params, "id")
    decision = _text(params, "decision")
    if decision not in DECISIONS:
        raise UsageError(f"invalid decision {decision!r}: use one of {', '.join(sorted(DECISIONS))}")
    if not gw.approvals.resolve(request_id, decision):  # type: ignore[arg-type]
        raise NotFoundError(f"no pending approval {request_id} (already answered or expired)")
    return {"id": request_id, "decision": decision}
