"""OpenClaw's `sessions.create` and `sessions.resolve`, part of the core's methods (`CORE_METHODS`): what
OpenClaw's TUI calls for `/new` (a fresh session it then opens) and to find a session by what the user
typed.

`sessions.create` makes the session (under `key`, else a fresh `agent:<id>:<hex>`), with an optional
model override and display name; a `parentSessionKey` is remembered as the session's parent; a `message`
starts its first turn, as `chat.send` would (the answer then says `runStarted` and the `runId`).
`sessions.resolve` finds a session by `key` or by `sessionId`; `allowMissing` turns "none" into
`{ok: false}` instead of an error, as OpenClaw's does.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from claw.api.method import RpcMethod, table
from claw.api.params import AgentParams, Flag, OptionalAgentSessionKey, OptionalStr, takes
from claw.api.session_rows import session_row
from claw.errors import NotFoundError
from claw.protocol.scopes import READ, WRITE
from claw.vocab.msg_context import MsgContext
from claw.vocab.session_keys import agent_of

if TYPE_CHECKING:
    from claw.api.host import ApiHost


class CreateParams(AgentParams):
    key: OptionalAgentSessionKey = None
    model: OptionalStr = None
    display_name: OptionalStr = None
    label: OptionalStr = None
    parent_session_key: OptionalAgentSessionKey = None
    message: OptionalStr = None
    idempotency_key: OptionalStr = None


class ResolveParams(AgentParams):
    key: OptionalAgentSessionKey = None
    session_id: OptionalStr = None
    allow_missing: Flag = False


@takes(CreateParams)
async def sessions_create(gw: ApiHost, params: CreateParams) -> dict[str, Any]:
    key = params.key or f"agent:{params.agent_id}:{secrets.token_hex(6)}"
    store = gw.sessions(agent_of(key))
    name = params.display_name or params.label

    def create() -> Any:
        entry = store.get_or_create(key, channel=params.caller_channel, display_name=name)
        if params.model:
            entry = store.update(key, model_override=params.model)
        if params.parent_session_key:
            entry = store.merge_extra(key, {"parentSessionKey": params.parent_session_key})
        return entry

    entry = await asyncio.to_thread(create)
    gw.broadcasts.session_changed(key, "create")
    answer: dict[str, Any] = {"ok": True, "key": key, "sessionId": entry.session_id, "entry": session_row(gw, entry)}
    if params.message:
        ctx = MsgContext(body=params.message, channel=params.caller_channel, agent_id=agent_of(key),
                         session_key=key, command_authorized=True)  # fmt: skip
        result = await gw.dispatch(ctx, idempotency_key=params.idempotency_key)
        answer["runStarted"] = result.run_id is not None
        if result.run_id:
            answer["runId"] = result.run_id
    return answer


@takes(ResolveParams)
async def sessions_resolve(gw: ApiHost, params: ResolveParams) -> dict[str, Any]:
    found = None
    if params.key:
        entry = gw.sessions(agent_of(params.key)).get(params.key)
        found = entry.session_key if entry is not None else None
    elif params.session_id:
        found = next((e.session_key for e in gw.sessions(params.agent_id).list() if e.session_id == params.session_id),
                     None)  # fmt: skip
    if found is not None:
        return {"ok": True, "key": found}
    if params.allow_missing:
        return {"ok": False}
    asked = params.key or params.session_id or "(nothing: give key or sessionId)"
    raise NotFoundError(f"no session {asked} (see `claw sessions ls`)")


SESSION_LIFECYCLE_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("sessions.create", WRITE, sessions_create),
    RpcMethod("sessions.resolve", READ, sessions_resolve),
)
