"""Sessions and transcript entries as OpenClaw's protocol (version 4) shows them: `sessions.list` rows,
`sessions.describe`'s `session`, `chat.history` messages, and the rows `sessions.changed` events carry.

One row shape for every method and event, so a client can merge what an event brings into what a list
gave it. Times are milliseconds since the epoch (OpenClaw's clock on the wire); the store keeps ISO-8601
strings, converted here and only here. A row names the session by `key`, as OpenClaw's do; claw's own
facts that OpenClaw has no field for (`messages`, forks, a subagent's status, the stored model override)
ride along under their own names, which OpenClaw's clients ignore.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from claw.vocab.session_keys import agent_of

if TYPE_CHECKING:
    from claw.api.host import ApiHost
    from claw.config import AgentSettings, Config
    from claw.gateway.runs import Run
    from claw.store.session_entry import SessionEntry


def epoch_ms(iso: str | None) -> int | None:
    """An ISO-8601 time (as the store keeps them) in milliseconds since the epoch; None if unreadable."""
    if not iso:
        return None
    try:
        return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def now_ms() -> int:
    return int(time.time() * 1000)


def split_model_ref(ref: str | None) -> tuple[str | None, str | None]:
    """`openai/gpt-4o-mini` → (`openai`, `gpt-4o-mini`); a bare name has no provider."""
    if not ref:
        return None, None
    provider, sep, model = ref.partition("/")
    return (provider, model) if sep else (None, ref)


def session_kind(entry: SessionEntry) -> str:
    """OpenClaw's `kind` of a row: `direct` or `group` (claw's `channel` chats count as groups)."""
    return "direct" if entry.chat_type == "direct" else "group"


def session_row(gw: ApiHost, entry: SessionEntry, *, ended: str | None = None) -> dict[str, Any]:
    """One session as `sessions.list` shows it (OpenClaw's `GatewaySessionRow` fields that claw has).
    `ended`: a run whose terminal event is being sent, no longer counted as active (it is, until the event
    is out)."""
    active = [run for run in gw.runs.active(entry.session_key) if run.id != ended]
    return entry_row(entry, gw.config, gw.runner.context.window, active)


def entry_row(
    entry: SessionEntry, config: Config, window: Callable[[AgentSettings, list[str]], int], active: Sequence[Run]
) -> dict[str, Any]:
    """`session_row` from its parts: `window` gives the context window a turn on a model chain budgets with,
    `active` are the session's runs not finished. claw.cli.state_methods builds rows with it, no gateway built."""
    key = entry.session_key
    agent_id = agent_of(key)
    settings = config.agent(agent_id)
    chain = [entry.model_override] if entry.model_override else settings.model.chain()  # as the runner picks
    provider, model = split_model_ref(chain[0] if chain else None)
    running = [run for run in active if run.started_at is not None]
    child = entry.extra.get("subagent")
    return {
        "key": key,
        "agentId": agent_id,
        "sessionId": entry.session_id,
        "kind": session_kind(entry),
        "chatType": entry.chat_type,
        "channel": entry.channel,
        "displayName": entry.display_name,
        "lastMessagePreview": entry.last_preview or None,
        "createdAt": epoch_ms(entry.created_at),
        "updatedAt": epoch_ms(entry.updated_at),
        "snapshotAt": now_ms(),
        "inputTokens": entry.input_tokens,
        "outputTokens": entry.output_tokens,
        "totalTokens": entry.input_tokens + entry.output_tokens,
        "modelProvider": provider,
        "model": model,
        "modelOverrideSource": "session" if entry.model_override else None,
        "contextTokens": window(settings, chain),  # the window the turn budgets, as /context
        "hasActiveRun": bool(active),
        "activeRunIds": [run.id for run in active],
        "status": "running" if running else ("queued" if active else "idle"),
        "thinkingLevel": entry.extra.get("think"),  # `/think`'s level (sessions.patch thinkingLevel), or null
        "verboseLevel": entry.extra.get("verboseLevel"),  # what OpenClaw's clients show of tool calls
        "spawnedBy": entry.extra.get("spawnedBy"),  # subagent sessions: the parent session's key
        "parentSessionKey": entry.extra.get("parentSessionKey")
        or entry.extra.get("spawnedBy")
        or entry.extra.get("forkedFrom"),
        # claw's own, beside OpenClaw's fields:
        "messages": entry.message_count,
        "modelOverride": entry.model_override,  # the ref `sessions.patch` stored, or null
        "forkedFrom": entry.extra.get("forkedFrom"),  # forks: the session copied, and at which message
        "forkedAt": entry.extra.get("forkedAt"),
        "subagentStatus": child.get("status") if isinstance(child, dict) else None,
    }


def history_message(entry: dict[str, Any], seq: int | None = None) -> dict[str, Any]:
    """A transcript entry for `chat.history`: as stored, plus OpenClaw's `timestamp` (ms) beside the stored
    `createdAt`, and its identity where OpenClaw's clients read it (`__openclaw {id, seq, runId}`: the
    entry's id, its 1-based place in the transcript, the run that wrote it). OpenClaw's TUI matches the
    messages it showed live to these by run id; without them it shows a finished turn twice."""
    message = dict(entry)
    stamp = epoch_ms(entry.get("createdAt"))
    if stamp is not None:
        message["timestamp"] = stamp
    identity = {"id": entry.get("id"), "seq": seq, "runId": entry.get("runId")}
    message["__openclaw"] = {name: value for name, value in identity.items() if value is not None}
    return message


def assistant_message(text: str, timestamp: int | None = None) -> dict[str, Any]:
    """The assistant's reply as OpenClaw's `chat` events carry it: a message with one text part."""
    message: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    if timestamp is not None:
        message["timestamp"] = timestamp
    return message
