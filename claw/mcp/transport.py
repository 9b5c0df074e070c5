"""Opening the connection to one configured server: a child process over stdio, or HTTP.

Secrets are resolved here, at connect time, from claw's environment (`envFrom`, `headersEnv`); a
variable that is not set is an error naming it (never its value). A stdio server gets the SDK's small
default environment (PATH, HOME …), where npm's and uv's caches are, plus what its settings give, not all
of claw's: a server sees no provider key it was not handed. The SDK starts it in a process group of its
own and, on close, closes its stdin, then terminates the whole group.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from claw.errors import ConfigError
from claw.settings.mcp import McpServerSettings


def resolved_env(name: str, refs: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """`{KEY: value of $VAR}` for each `KEY = "VAR"`; a missing variable is a ConfigError naming both."""
    out = {}
    for key, var in refs.items():
        value = environ.get(var)
        if value is None:
            raise ConfigError(f"mcp.servers.{name}: {key} comes from ${var}, which is not set")
        out[key] = value
    return out


@asynccontextmanager
async def open_transport(
    name: str,
    settings: McpServerSettings,
    *,
    log_file: Path,
    environ: Mapping[str, str] | None = None,
    argv: Sequence[str] | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams of a connection to server `name`, closed (and its process ended) on exit.
    `argv` replaces `command` + `args` for a stdio server (its bwrap command line, claw/mcp/sandboxing.py)."""
    env = os.environ if environ is None else environ
    async with AsyncExitStack() as stack:
        if settings.command is not None:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            from claw.mcp.command_needs import server_environment

            command, *args = argv or (settings.command, *settings.args)
            params = StdioServerParameters(
                command=command,
                args=args,
                env={**server_environment(settings.env, env), **resolved_env(name, settings.env_from, env)},
                cwd=settings.cwd,
            )
            log_file.parent.mkdir(parents=True, exist_ok=True)
            errlog = stack.enter_context(_private_log(log_file))
            streams = await stack.enter_async_context(stdio_client(params, errlog=errlog))
        else:
            import httpx2

            assert settings.url is not None
            headers = resolved_env(name, settings.headers_env, env)
            timeout = httpx2.Timeout(settings.timeout_seconds, read=max(300.0, settings.timeout_seconds))
            if settings.transport == "sse":
                from mcp.client.sse import sse_client

                streams = await stack.enter_async_context(
                    sse_client(settings.url, headers=headers, timeout=settings.timeout_seconds)
                )
            else:
                from mcp.client.streamable_http import streamable_http_client

                client = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=timeout))
                streams = await stack.enter_async_context(streamable_http_client(settings.url, http_client=client))
        yield streams[0], streams[1]


def _private_log(path: Path) -> Any:
    """The server's stderr log, opened for appending, readable by the owner only (0600, old ones too)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "a", encoding="utf-8")
