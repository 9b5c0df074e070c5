"""`[mcp]` in config.toml: the MCP servers whose tools the agents get, and the prompt budget.

The shape follows the `mcpServers` convention users copy between tools (command/args/env, url/headers),
with secrets by reference: `envFrom`/`headersEnv` name environment variables, so a token never sits in
config.toml, a transcript or a log. A pure pydantic leaf: claw.config imports it without the SDK.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from claw.settings_base import HttpUrl, Section

Approval = Literal["always", "never", "on-write"]


class McpServerSettings(Section):
    """One server under `[mcp.servers.<name>]`: a command to run (stdio) or a `url` (streamable HTTP)."""

    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = {}
    """Plain variables for the server process; never secrets (use `envFrom`): config.toml is not a vault."""
    env_from: dict[str, str] = {}
    """Variables for the server taken from claw's environment: `{ GITHUB_TOKEN = "MY_GH_TOKEN" }`."""
    cwd: str | None = None
    url: HttpUrl | None = None
    transport: Literal["streamable-http", "sse"] = "streamable-http"
    """For a `url`: `sse` for older servers that only speak the HTTP+SSE transport."""
    headers_env: dict[str, str] = {}
    """HTTP headers whose values come from the environment: `{ Authorization = "TRACKER_AUTH" }`."""
    enabled: bool = True
    timeout_seconds: float = Field(default=60.0, gt=0, le=86_400)
    """Per tool call, and for each listing of the server's tools."""
    startup_timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    """For start-up: spawning or connecting, the initialize handshake and the first tool listing."""
    tools: tuple[str, ...] = ("*",)
    """Tool names (fnmatch globs) to offer; `*` offers all."""
    exclude_tools: tuple[str, ...] = ()
    agents: tuple[str, ...] = ("*",)
    """Agents that get this server's tools; `*` for all."""
    approval: Approval = "never"
    """Ask before a call (through the exec approval path): `always`, `never`, or `on-write` (every tool the
    server does not mark `readOnlyHint`)."""
    startup: Literal["eager", "lazy"] = "eager"
    """`eager`: started with the gateway; `lazy`: on the first turn that could use it."""
    sandbox: bool | None = None
    """Run a stdio server under bubblewrap, as exec runs commands (claw/mcp/sandboxing.py says what it
    sees): the workspaces, its `cwd` and the directories in its `args` writable, its install prefix
    read-only, the home and claw's state hidden, and the network allowed (servers often need it). Unset:
    sandboxed when the agents it serves have `sandbox.mode` other than `off` and bwrap works (else run
    as is, and `claw mcp ls` says so); `true`: never start it unsandboxed; `false`: never sandbox it."""
    binds: tuple[str, ...] = ()
    """Extra host paths the sandboxed server sees, as `sandbox.binds`: `SRC`, `SRC:DEST`, `SRC:rw` …
    (e.g. `~/.cache/uv:rw` to keep uvx's downloads between starts)."""

    @field_validator("binds")
    @classmethod
    def _binds_parse(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from claw.settings.sandbox import parse_bind

        for spec in value:
            parse_bind(spec)  # a ValueError that pydantic reports with the key
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either `command` (a stdio server) or `url` (an HTTP server), not both or neither")
        return self


class McpSettings(Section):
    """`[mcp]`: the servers, and when their schemas give way to a compact catalogue."""

    servers: dict[str, McpServerSettings] = {}
    catalogue_threshold: int = Field(default=20, ge=0, le=100_000)
    """Above this many MCP tools, the prompt lists them by name and one line (a catalogue), and the model
    loads a server's full schemas with `mcp_tool_search`; 0 always uses the catalogue."""
    catalogue_max_chars: int = Field(default=8_000, ge=1_000, le=200_000)
    """The catalogue's size: tools that do not fit are left out (the model finds them with a `query`)."""
    load_max_chars: int = Field(default=64_000, ge=1_000, le=1_000_000)
    """The most schemas one `mcp_tool_search` loads (they are sent with every later call of the session);
    a search that matches more is refused and asks for narrower words."""
    restart_max_seconds: float = Field(default=60.0, gt=0, le=3600)
    """The longest wait between restarts of a server that keeps failing (the backoff doubles up to it)."""

    @model_validator(mode="after")
    def _names(self) -> McpSettings:
        for name in self.servers:
            if not name or "__" in name or not all(c.isalnum() or c in "-_" for c in name):
                raise ValueError(f"server name {name!r}: use letters, digits, '-' or '_' (no '__')")
        return self
