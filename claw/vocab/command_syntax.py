"""What counts as a slash command: `/name args`. Shared by the gateway, the channels' access
checks and the console (which must not import the gateway to tell a command from a message)."""

from __future__ import annotations


def parse_command(text: str) -> tuple[str, str] | None:
    """`("name", "args")` for `/name args`, else None.

    The name is the first word, up to any whitespace (a newline too), made of letters, digits, `-` and `_`;
    so `/usr/bin/foo is missing` and `/a.b` are messages that start with a path, `//x` one that starts with
    a slash, and `/ x` one that starts with a lone slash. One namespaced form is a name too:
    `/mcp:SERVER:PROMPT` (an MCP server's prompt), whose parts keep their case (prompt names are
    case-sensitive), each part made of the same characters."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    body = stripped[1:]
    if not body or body[0].isspace():
        return None
    head, *rest = body.split(None, 1)
    name = head.rstrip(":")
    namespace, colon, tail = name.partition(":")
    if colon and namespace.lower() == MCP_NAMESPACE and all(map(_plain, tail.split(":"))):
        return f"{MCP_NAMESPACE}:{tail}", rest[0].strip() if rest else ""
    name = name.lower()
    if not _plain(name):
        return None
    return name, rest[0].strip() if rest else ""


MCP_NAMESPACE = "mcp"


def _plain(word: str) -> bool:
    """Letters, digits, `-` and `_` (at least one character)."""
    return bool(word) and word.replace("-", "").replace("_", "").isalnum()
