"""RPC methods for subagents (served in-process and over WebSocket):

- `subagents.list {parentRunId?, sessionKey?, activeOnly?}`: running and recent children, oldest first, each
  with status, parent run and session, and its announcement (`announce`, `announceRunId`).
- `subagents.abort {runId}`: stop one child (its end is announced to the parent as `aborted`).
- `subagents.wait {parentRunId, timeoutMs?, known?}`: wait until everything run `parentRunId` started (children,
  their announcement turns, what those spawned) has settled, or an announcement turn not in `known` has begun;
  `{status: settled|pending|timeout, announceRunIds, children}`. `claw agent -m` follows the new
  announcement turns and asks again until `settled`.

Each is bound to the capability's `SubagentRegistry`, and `subagents.abort` to its `SubagentsHost` too,
which stops the run; the gateway that `Gateway.call_method` hands every method first is not used.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BeforeValidator, Field

from claw.api.method import RpcMethod, table
from claw.api.params import Flag, Milliseconds, NonEmptyStr, Params, SessionKey, takes
from claw.errors import NotFoundError
from claw.protocol.scopes import ADMIN, READ

if TYPE_CHECKING:
    from claw.subagents.host import SubagentsHost
    from claw.subagents.registry import SubagentRegistry

MAX_WAIT_MS = 10 * 60 * 1000


class SubagentListParams(Params):
    parent_run_id: NonEmptyStr | None = None
    session_key: SessionKey | None = None
    active_only: Flag = False


class SubagentAbortParams(Params):
    run_id: NonEmptyStr


def _none_is_empty(value: Any) -> Any:
    return [] if value is None else value


class SubagentWaitParams(Params):
    parent_run_id: NonEmptyStr
    timeout_ms: Milliseconds = 30_000
    known: Annotated[list[str], BeforeValidator(_none_is_empty)] = Field(
        default_factory=list, description="a list of run ids"
    )


@takes(SubagentListParams)
async def subagents_list(
    registry: SubagentRegistry, _gateway: object, params: SubagentListParams
) -> list[dict[str, Any]]:
    records = registry.tree(params.parent_run_id) if params.parent_run_id else registry.all()
    if session := params.session_key:
        records = [r for r in records if session in (r.parent_session_key, r.session_key)]
    if params.active_only:
        records = [r for r in records if not r.finished]
    return [r.to_wire() for r in records]


@takes(SubagentAbortParams)
async def subagents_abort(
    registry: SubagentRegistry, host: SubagentsHost, _gateway: object, params: SubagentAbortParams
) -> dict[str, Any]:
    record = registry.get(params.run_id)
    if record is None:
        raise NotFoundError(f"no subagent run {params.run_id} (see subagents.list)")
    return {"runId": record.run_id, "aborted": int(host.abort(record.run_id))}


@takes(SubagentWaitParams)
async def subagents_wait(registry: SubagentRegistry, _gateway: object, params: SubagentWaitParams) -> dict[str, Any]:
    timeout = min(params.timeout_ms, MAX_WAIT_MS) / 1000
    return await registry.wait(params.parent_run_id, params.known, timeout)


def subagent_methods(registry: SubagentRegistry, host: SubagentsHost) -> dict[str, RpcMethod]:
    """These methods by wire name, bound to `registry` (and `host`, to stop a run)."""
    return table(
        RpcMethod("subagents.list", READ, partial(subagents_list, registry)),
        RpcMethod("subagents.abort", ADMIN, partial(subagents_abort, registry, host)),
        RpcMethod("subagents.wait", ADMIN, partial(subagents_wait, registry)),
    )
