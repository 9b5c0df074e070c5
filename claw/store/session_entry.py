"""`SessionEntry`: one row of an agent's session index, and its camelCase JSON form."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

PREVIEW_LIMIT = 120

# Session ids name files, so a hand-edited index must not smuggle in a path.
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")

_JSON_NAMES = {
    "session_key": "sessionKey",
    "session_id": "sessionId",
    "created_at": "createdAt",
    "updated_at": "updatedAt",
    "message_count": "messageCount",
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "model_override": "modelOverride",
    "last_preview": "lastPreview",
    "chat_type": "chatType",
    "channel": "channel",
    "display_name": "displayName",
    "extra": "extra",
}
_FIELD_NAMES = {json_name: name for name, json_name in _JSON_NAMES.items()}
_INTS = ("message_count", "input_tokens", "output_tokens")
_OPTIONAL_STRS = ("model_override", "display_name")


def make_preview(text: str, limit: int = PREVIEW_LIMIT) -> str:
    """`text` on one line, whitespace collapsed, cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def valid_session_id(session_id: str) -> bool:
    """True when `session_id` is safe to use as a file name."""
    return bool(_SESSION_ID.match(session_id))


@dataclass(frozen=True, slots=True)
class SessionEntry:
    """What the index knows about one session key: its current transcript and counters.

    `session_id` names the transcript file `<sessions_dir>/<session_id>.jsonl`; a reset
    gives the key a new id. Timestamps are ISO-8601 UTC strings. `extra` holds fields
    added by later features (it also keeps unknown keys found in the file, so nothing a
    newer claw wrote is dropped).

    `message_count` is derived from the transcript, never kept on its own: the transcript's
    entries that have a `role` (user, assistant, tool and system messages, the assistant entry
    closing an interrupted turn included), not its markers (compactions, partial replies). It is
    set after every turn, and recounted when the store finds the two disagreeing (a process
    killed mid-turn never got to set it).
    """

    session_key: str
    session_id: str
    created_at: str
    updated_at: str
    message_count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_override: str | None = None
    last_preview: str = ""
    chat_type: str = "direct"
    channel: str = "cli"
    display_name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The camelCase object stored in sessions.json."""
        return {_JSON_NAMES[f.name]: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, key: str, data: Any) -> SessionEntry:
        """Parse one index value stored under `key`; raises ValueError when it is unusable."""
        if not isinstance(data, dict):
            raise ValueError("entry is not an object")
        values: dict[str, Any] = {}
        extra = dict(data["extra"]) if isinstance(data.get("extra"), dict) else {}
        for json_name, value in data.items():
            name = _FIELD_NAMES.get(json_name)
            if name is None:
                extra.setdefault(json_name, value)
            elif name != "extra":
                values[name] = value
        values["session_key"] = key.lower()
        session_id = values.get("session_id")
        if not isinstance(session_id, str) or not valid_session_id(session_id):
            raise ValueError(f"bad sessionId {session_id!r}")
        for name in ("created_at", "updated_at"):
            if not isinstance(values.get(name), str):
                raise ValueError(f"missing {_JSON_NAMES[name]}")
        for name in _INTS:
            value = values.get(name, 0)
            values[name] = value if isinstance(value, int) and not isinstance(value, bool) else 0
        for name in _OPTIONAL_STRS:
            if not isinstance(values.get(name), str):
                values[name] = None
        for name, default in (("last_preview", ""), ("chat_type", "direct"), ("channel", "cli")):
            if not isinstance(values.get(name), str):
                values[name] = default
        return cls(**values, extra=extra)
