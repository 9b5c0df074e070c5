"""A slash command on OpenClaw's own gateway, as its TUI sends one: `chat.send`, answered by one `chat` event.

OpenClaw's `agent` method handles `/new` and `/reset` only; any other command (`/status`, `/help`, …) it takes
for a message and hands to the model. Its `chat.send` runs the command, acknowledges with `{runId, status:
"started"}` and then sends the command's answer as a `chat` event of that run, `state: "final"` with the reply
as an assistant message (or `"error"` / `"aborted"`). claw's gateway answers every command through `agent`
itself, so a `RemoteClient` takes this path only on a gateway that is not claw's (`is_claw_gateway`).
"""

from __future__ import annotations

from typing import Any

CLAW_ONLY_METHOD = "agent.follow"
"""A method every claw gateway serves and OpenClaw's does not: how a client tells the two apart."""
ACKED = frozenset({"started", "accepted", "in_flight"})
"""`chat.send` statuses that promise a `chat` event with the outcome."""
ENDED = frozenset({"final", "error", "aborted"})
"""A `chat` event's states that end the run."""


def is_claw_gateway(hello: dict[str, Any]) -> bool:
    """Whether the hello came from claw's gateway (which answers commands through `agent`)."""
    features = value if isinstance(value := hello.get("features"), dict) else {}
    methods = value if isinstance(value := features.get("methods"), list) else []
    return CLAW_ONLY_METHOD in methods


def reply_of(payload: dict[str, Any]) -> tuple[str, str | None]:
    """The text of a final `chat` event, and None; or, for an error or an abort, what it said and its state."""
    message = value if isinstance(value := payload.get("message"), dict) else {}
    content = message.get("content")
    if isinstance(content, str):
        text = content
    else:
        parts = content if isinstance(content, list) else []
        text = "\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
    state = str(payload.get("state"))
    if state == "final":
        return text, None
    return text or str(payload.get("errorMessage") or payload.get("error") or state), state
