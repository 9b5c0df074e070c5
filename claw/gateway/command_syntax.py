"""What counts as a slash command: `/name args`. Shared by the gateway, the channels' access
checks and the console (which must not import the gateway to tell a command from a message)."""

from __future__ import annotations


def parse_command(text: str) -> tuple[str, str] | None:
    """`("name", "args")` for `/name args`, else None (`//x` is a message that starts with a slash)."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    head, _, rest = stripped[1:].partition(" ")
    name = head.rstrip(":").lower()
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        return None
    return name, rest.strip()
