"""The chat RPC methods of OpenClaw's protocol 4 — `chat.send`, `chat.abort`, `chat.history`, `chat.startup` —
part of the core's methods (`CORE_METHODS`).

`chat.send` is how OpenClaw's TUI and Control UI send: it starts a run like `agent` does, answers at once
(`{runId, status: "started"}`), and the reply arrives as `chat` events (`claw.api.chat_events`, through
`Gateway.broadcasts`). A slash command is answered by the gateway, not the model; its reply still comes
as a `chat` event (`final`, or `error` for a failed command), so a client shows it where it shows replies.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from claw.api.method import RpcMethod, table
from claw.api.params import NonEmptyStr, Number, OptionalStr, SessionParams, takes
from claw.api.session_rows import assistant_message, history_message, now_ms, session_row
from claw.errors import UsageError
from claw.protocol.scopes import READ, WRITE
from claw.vocab.msg_context import MsgContext

if TYPE_CHECKING:
    from claw.api.host import ApiHost
    from claw.gateway.dispatch_result import DispatchResult


class ChatSendParams(SessionParams):
    """`chat.send`: `message` into the session `sessionKey`; the `idempotencyKey` becomes the run's id."""

    message: NonEmptyStr
    idempotency_key: OptionalStr = None


class ChatAbortParams(SessionParams):
    """`chat.abort`: the run `runId` of the session, or else every run of it."""

    run_id: OptionalStr = None


class HistoryParams(SessionParams):
    limit: Number = Field(200, description="a number; 0 for the whole history")
    input_run_ids: list[str] = Field(default_factory=list, max_length=50, description="a list of run ids")
    """OpenClaw's `inputRunIds`: turns a client sent (`chat.send`'s idempotency key), whose receipts it wants."""


@takes(ChatSendParams)
async def chat_send(gw: ApiHost, params: ChatSendParams) -> dict[str, Any]:
    ctx = MsgContext(
        body=params.message,
        channel=params.caller_channel,
        agent_id=params.session_agent,
        session_key=params.session_key,
        command_authorized=True,  # only the operator's authenticated clients reach gateway methods
    )
    result = await gw.dispatch(ctx, idempotency_key=params.idempotency_key)
    if result.run_id:
        status = "started" if result.status == "accepted" else result.status
        return {"runId": result.run_id, "status": status}
    # No run (a command's reply, or the session's full queue refused it), but the client waits on an id.
    run_id = params.idempotency_key or uuid.uuid4().hex
    failed = result.error is not None or result.status == "dropped"
    _no_run_reply(gw, result, run_id, failed)
    status = "dropped" if result.status == "dropped" else ("error" if failed else "ok")
    return {"runId": run_id, "status": status, "reply": result.reply}


def _no_run_reply(gw: ApiHost, result: DispatchResult, run_id: str, failed: bool) -> None:
    """A command's reply (or why the message was refused) as the one `chat` event a client waits for."""
    base: dict[str, Any] = {"runId": run_id, "sessionKey": result.session_key, "seq": 1}
    if not failed:
        frame = {**base, "state": "final", "message": assistant_message(result.reply or "", now_ms())}
    else:
        frame = {**base, "state": "error", "errorMessage": result.reply or "", "errorKind": "unknown"}
    gw.broadcasts.publish("chat", frame)


@takes(ChatAbortParams)
async def chat_abort(gw: ApiHost, params: ChatAbortParams) -> dict[str, Any]:
    key = params.session_key
    if params.run_id:
        run = gw.runs.get(params.run_id)
        if run is not None and run.session_key != key:
            raise UsageError(f"run {params.run_id} is not a run of {key}")
        stopped = [params.run_id] if gw.abort(params.run_id) else []
    else:
        stopped = [run.id for run in gw.runs.active(key) if gw.abort(run.id)]
    return {"ok": True, "aborted": bool(stopped), "runIds": stopped}


@takes(HistoryParams)
async def chat_history(gw: ApiHost, params: HistoryParams) -> dict[str, Any]:
    """The session's transcript entries (the newest `limit`), each with OpenClaw's `timestamp` in ms."""
    return await _history(gw, params)


@takes(HistoryParams)
async def chat_startup(gw: ApiHost, params: HistoryParams) -> dict[str, Any]:
    """What OpenClaw's Control UI opens a chat with: `chat.history`'s answer for `sessionKey` (its other form,
    a short chat link's `shortId`, names no session here and reads as `main`; `maxBytes` is not needed: the
    newest `limit` entries are sent whole)."""
    return await _history(gw, params)


async def _history(gw: ApiHost, params: HistoryParams) -> dict[str, Any]:
    key, limit = params.session_key, int(params.limit)
    store = gw.sessions(params.session_agent)
    entry = store.get(key)
    if entry is None:
        return {"sessionKey": key, "sessionId": None, "messages": []}
    entries = await asyncio.to_thread(store.transcript(entry).read)
    first = max(0, len(entries) - limit) if limit > 0 else 0
    messages = [history_message(e, seq) for seq, e in enumerate(entries[first:], start=first + 1)]
    levels = {"thinkingLevel": entry.extra.get("think"), "verboseLevel": entry.extra.get("verboseLevel")}
    last_run = next((e["runId"] for e in reversed(entries) if isinstance(e.get("runId"), str)), None)
    # `sessionInfo`: the session's row as `sessions.list` has it, with the last run that wrote to it. OpenClaw's
    # Control UI takes a turn it sent for finished only once this says no run is active and names that run.
    info = {**session_row(gw, entry), "lastRunId": last_run}
    answer = {"sessionKey": key, "sessionId": entry.session_id, "messages": messages, "sessionInfo": info, **levels}
    if params.input_run_ids:
        answer["inputReceipts"] = _receipts(gw, entries, params.input_run_ids)
    return answer


def _receipts(gw: ApiHost, entries: list[dict[str, Any]], run_ids: list[str]) -> list[dict[str, Any]]:
    """OpenClaw's `inputReceipts`: for each turn asked about, `consumed` (with the transcript entry that took it
    in) once its message is in the transcript, `pending` while its run waits or goes; nothing for an unknown
    one. The Control UI retires the message it showed while sending once its receipt says `consumed`."""
    taken = {e["runId"]: e.get("id") for e in entries if e.get("role") == "user" and isinstance(e.get("runId"), str)}
    receipts: list[dict[str, Any]] = []
    for run_id in dict.fromkeys(run_ids):
        if run_id in taken:
            receipts.append({"runId": run_id, "state": "consumed", "consumedByEventId": taken[run_id]})
        elif (run := gw.runs.get(run_id)) is not None and not run.finished:
            receipts.append({"runId": run_id, "state": "pending"})
    return receipts


CHAT_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("chat.send", WRITE, chat_send),
    RpcMethod("chat.abort", WRITE, chat_abort),
    RpcMethod("chat.history", READ, chat_history),
    RpcMethod("chat.startup", READ, chat_startup),  # `chat.history` by another name, for OpenClaw's Control UI
)
