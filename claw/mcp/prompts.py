"""`/mcp:SERVER:PROMPT [key=value …]` (or `/mcp prompt SERVER NAME …`): a server's prompt (`prompts/get`)
run as the user's message. Values may be quoted: `topic="the sea"`.

A prompt is a template the user chose to run, so its text becomes the turn's message, headed with
where it came from; what the model then does with the server's tools goes through the usual checks.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from claw.errors import UsageError
from claw.gateway.commands import RunInstead

if TYPE_CHECKING:
    from claw.mcp.manager import McpManager

USAGE = "usage: /mcp:SERVER:PROMPT [key=value …] (or /mcp prompt SERVER NAME [key=value …])"


async def prompt_command(manager: McpManager, name: str, args: str) -> RunInstead:
    """`/mcp:SERVER:PROMPT args`, the command's `name` being `mcp:SERVER:PROMPT`."""
    parts = name.split(":")[1:]
    if len(parts) != 2:
        raise UsageError(f"{USAGE} (got /{name})")
    return await run_prompt(manager, [*parts, *prompt_words(args)])


def prompt_words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError as exc:  # an unclosed quote
        raise UsageError(f"{USAGE} ({exc})") from None


async def run_prompt(manager: McpManager, words: list[str]) -> RunInstead:
    if len(words) < 2:
        raise UsageError(USAGE)
    server, name, pairs = words[0], words[1], words[2:]
    arguments = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"{USAGE} (got {pair!r})")
        arguments[key] = value
    await manager.ensure_started()
    connection = manager.connections.get(server)
    if connection is None:
        raise UsageError(f"no MCP server {server!r}; configured: {', '.join(manager.connections) or 'none'}")
    from claw.mcp.connection import ServerDown

    try:
        session = await connection.session()
        result = await session.get_prompt(name, arguments or None)
    except ServerDown as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - the server's refusal (unknown prompt, bad arguments) is the user's
        raise UsageError(f"MCP server {server}: prompt {name!r}: {exc}") from None
    parts = [getattr(m.content, "text", None) or f"[{m.content.type} content left out]" for m in result.messages]
    return RunInstead(f"[MCP prompt {server}/{name}]\n" + "\n\n".join(parts))
