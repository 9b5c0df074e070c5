"""`agent`, `agent.wait`, `agent.abort` and `agent.follow`: a turn started, waited for, stopped, followed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from claw.api.method import RpcMethod, table
from claw.api.params import (
    AgentParams,
    Milliseconds,
    NonEmptyStr,
    OptionalAgentSessionKey,
    OptionalStr,
    Params,
    SessionParams,
    takes,
)
from claw.errors import NotFoundError
from claw.protocol.scopes import ADMIN, READ, WRITE
from claw.vocab.msg_context import MsgContext

if TYPE_CHECKING:
    from claw.api.host import ApiHost


class AgentTurnParams(AgentParams):
    """`agent`: run `message` as a turn; the session is `sessionKey` (under `agentId`) or the one the
    message's channel maps to."""

    message: NonEmptyStr
    session_key: OptionalAgentSessionKey = None
    idempotency_key: OptionalStr = None
    model: OptionalStr = None


class RunParams(Params):
    run_id: NonEmptyStr


class WaitParams(RunParams):
    timeout_ms: Milliseconds = 30_000


class AbortParams(SessionParams):
    """`agent.abort`: the run `runId`, or else every run of the session."""

    run_id: OptionalStr = None


@takes(AgentTurnParams)
async def agent(gw: ApiHost, params: AgentTurnParams) -> dict[str, Any]:
    ctx = MsgContext(
        body=params.message,
        channel=params.caller_channel,
        agent_id=params.agent_id,
        session_key=params.session_key,
        command_authorized=True,  # only the operator's authenticated clients reach the `agent` method
    )
    result = await gw.dispatch(ctx, idempotency_key=params.idempotency_key, model=params.model)
    return result.to_wire()


@takes(WaitParams)
async def agent_wait(gw: ApiHost, params: WaitParams) -> dict[str, Any]:
    run = gw.runs.get(params.run_id)
    if run is None:
        raise NotFoundError(f"unknown run {params.run_id}")
    outcome = await run.wait(params.timeout_ms / 1000)
    return {"status": "timeout"} if outcome is None else outcome.to_wire(run.id, run.session_id)


@takes(AbortParams)
async def agent_abort(gw: ApiHost, params: AbortParams) -> dict[str, Any]:
    if params.run_id:
        return {"aborted": int(gw.abort(params.run_id))}
    return {"aborted": gw.abort_session(params.session_key)}


@takes(RunParams)
async def agent_follow(gw: ApiHost, params: RunParams) -> dict[str, Any]:
    """Attach to an existing run. In-process this only checks the run exists; over WebSocket the
    server then streams the run's events (replayed from the first) and a final `res`, as after `agent`."""
    run_id = params.run_id
    run = gw.runs.get(run_id)
    if run is None:
        raise NotFoundError(f"unknown run {run_id}")
    status = "finished" if run.finished else "accepted"
    return {"status": status, "runId": run.id, "agentId": run.agent_id, "sessionKey": run.session_key}


_RESET_COMMAND = re.compile(r"^/(new|reset)(\s|$)", re.IGNORECASE)


def agent_scope(params: Mapping[str, Any] | None) -> str:
    """`agent` runs a turn (write); with `/new` or `/reset` it resets a session (admin), as OpenClaw has it."""
    if params is not None and _RESET_COMMAND.match(str(params.get("message", "")).strip()):
        return ADMIN
    return WRITE


AGENT_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("agent", agent_scope, agent),
    RpcMethod("agent.wait", WRITE, agent_wait),
    RpcMethod("agent.abort", WRITE, agent_abort),
    RpcMethod("agent.follow", READ, agent_follow),
)
"""The `agent.*` methods, by wire name (part of `claw.api.core.CORE_METHODS`)."""
