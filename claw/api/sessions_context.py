"""`sessions.context` (what a session's prompt holds, per section) and `sessions.compact` (summarise its older
history now): the RPC face of `/context` and `/compact` (`claw.gateway.context_commands`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from claw.api.method import RpcMethod, table
from claw.api.params import OptionalStr, SessionParams, takes
from claw.gateway.context_commands import compact_session, session_context
from claw.protocol.scopes import ADMIN, READ

if TYPE_CHECKING:
    from claw.api.host import ApiHost


class CompactParams(SessionParams):
    focus: OptionalStr = None


@takes(SessionParams)
async def sessions_context(gw: ApiHost, params: SessionParams) -> dict[str, Any]:
    return await session_context(gw, params.session_agent, params.session_key)


@takes(CompactParams)
async def sessions_compact(gw: ApiHost, params: CompactParams) -> dict[str, Any]:
    key = params.session_key
    result = await compact_session(gw, params.session_agent, key, params.focus)
    named = {"ok": True, "key": key, "sessionKey": key}  # `key` and `ok`: as OpenClaw's sessions.compact answers
    if result is None:
        return {**named, "compacted": False}
    return {**named, "compacted": True, **result.to_json(), "summary": result.summary}


SESSION_CONTEXT_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("sessions.context", READ, sessions_context),
    RpcMethod("sessions.compact", ADMIN, sessions_compact),
)
