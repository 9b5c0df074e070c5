"""The `sessions_send` tool: put a message into another session and (unless told not to) wait for its reply.

The message starts a turn there on the `nested` lane, marked with the session it came from. With
`timeoutSeconds: 0` the tool returns as soon as the turn is queued; otherwise it waits up to that
long for the reply. A turn that outlives the wait goes on; its reply stays in that session.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from claw.errors import ClawError
from claw.gateway.dispatch_result import NoRunStarted
from claw.subagents.announce import ANNOUNCE_LANE
from claw.subagents.session_access import target_entry
from claw.tools.args import ToolArgumentError, str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.vocab.msg_context import MsgContext
from claw.vocab.session_keys import agent_of

if TYPE_CHECKING:
    from claw.subagents.host import SubagentsHost

DEFAULT_TIMEOUT_SECONDS = 60.0
MAX_TIMEOUT_SECONDS = 600.0
MAX_MESSAGE_CHARS = 50_000


class SendTool:
    name = "sessions_send"
    description = (
        "Send a message to another session (key from sessions_list); it starts a turn there. By default "
        f"waits up to {DEFAULT_TIMEOUT_SECONDS:g} s for the reply and returns it; `timeoutSeconds` changes "
        f"the wait (at most {MAX_TIMEOUT_SECONDS:g}), and 0 sends without waiting."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "sessionKey": {"type": "string"},
            "message": {"type": "string"},
            "timeoutSeconds": {"type": "number", "minimum": 0, "maximum": MAX_TIMEOUT_SECONDS},
        },
        "required": ["sessionKey", "message"],
        "additionalProperties": False,
    }

    def __init__(self, host: SubagentsHost) -> None:
        self._host = host

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        message = str_arg(args, "message", tool=self.name).strip()
        if not message or len(message) > MAX_MESSAGE_CHARS:
            raise ToolArgumentError(f"{self.name}: 'message' must be 1 to {MAX_MESSAGE_CHARS} chars")
        timeout = _timeout(args.get("timeoutSeconds"), self.name)
        entry = target_entry(self._host, ctx, str_arg(args, "sessionKey", tool=self.name), self.name)
        if entry.session_key == ctx.session_key:
            raise ClawError(f"{self.name}: that is this session; answer here instead of sending to yourself")
        caller = self._host.find_run(ctx.run_id)
        inbound = MsgContext(
            body=message,
            body_for_agent=f"[Message from session {ctx.session_key}]\n{message}",
            channel=ctx.channel,
            sender_id=caller.ctx.sender_id if caller else "local",
            agent_id=agent_of(entry.session_key),
            session_key=entry.session_key,
            command_authorized=False,  # another session's text is never a slash command here
        )
        try:
            run = await self._host.start_run(inbound, lane=ANNOUNCE_LANE)
        except NoRunStarted as exc:
            raise ClawError(f"{self.name}: {entry.session_key} did not start a turn ({exc.status})") from None
        reply: dict[str, Any] = {"sessionKey": entry.session_key, "runId": run.id}
        if timeout == 0:
            return ToolResult(json.dumps({**reply, "status": "accepted"}))
        outcome = await run.wait(timeout)
        if outcome is None:
            note = f"no reply within {timeout:g} s; the turn goes on and its reply stays in that session"
            return ToolResult(json.dumps({**reply, "status": "timeout", "note": note}))
        if outcome.status != "ok":
            failed = {**reply, "status": outcome.status, "error": outcome.error}
            return ToolResult(json.dumps(failed, ensure_ascii=False), is_error=True)
        return ToolResult(json.dumps({**reply, "status": "ok", "reply": outcome.text}, ensure_ascii=False))


def _timeout(value: Any, tool: str) -> float:
    if value is None:
        return DEFAULT_TIMEOUT_SECONDS
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_TIMEOUT_SECONDS:
        raise ToolArgumentError(f"{tool}: 'timeoutSeconds' must be a number from 0 to {MAX_TIMEOUT_SECONDS:g}")
    return float(value)
