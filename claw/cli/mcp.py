"""`claw mcp ls|tools|add|rm|test|import|resources|prompts|serve`: MCP servers from the terminal.

`ls` and `tools` ask the running gateway when there is one (its servers' live state); without one,
`tools`, `test`, `resources` and `prompts` start the server here, ask, and stop it again.
`claw --help` imports this module, so asyncio and the rest are imported inside the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from claw.cli.common import JsonOption, listing, print_json
from claw.untrusted import shown

app = typer.Typer(help="MCP servers: list, add, test, import; and `serve` claw to MCP clients.", no_args_is_help=True)
NameArg = typer.Argument(..., help="The server's name under [mcp.servers].")


@listing(app)
def ls(json_out: bool = JsonOption) -> None:
    """Servers: transport, state, tool count, restarts, last error."""
    from claw.cli.gateway_call import call_gateway, running_gateway_url

    rows = call_gateway("mcp.status")
    if json_out:
        print_json(rows)
        return
    if not rows:
        print("No MCP servers. Add one: claw mcp add NAME -- COMMAND ARGS…  (or --url URL)")
        return
    from claw.cli.table import Column, print_table

    columns = (
        Column("NAME"),
        Column("TRANSPORT"),
        Column("STATE"),
        Column("TOOLS"),
        Column("RESTARTS"),
        Column("SANDBOX"),
        Column("TARGET / LAST ERROR", flex=True, floor=20),
    )
    print_table(
        columns,
        [
            (
                r["name"],
                r["transport"],
                r["state"],
                r["tools"],
                r["restarts"],
                r.get("sandbox", ""),
                r["lastError"] or r["target"],
            )
            for r in rows
        ],
    )
    if running_gateway_url() is None:
        print("(no gateway running: servers start with it; `claw mcp test NAME` tries one now)")


@app.command("tools")
def tools(
    server: str | None = typer.Argument(None, help="Only this server's tools."), json_out: bool = JsonOption
) -> None:
    """The tools each server offers (and those skipped, with the reason)."""
    from claw.cli.gateway_call import call_gateway, running_gateway_url

    if running_gateway_url() is not None:
        rows = call_gateway("mcp.tools", server=server)
    else:
        import asyncio

        rows = asyncio.run(_local_tools(server))
    if json_out:
        print_json(rows)
        return
    if not rows:
        print("No tools.")
        return
    from claw.cli.table import Column, print_table  # aligned, like every listing

    columns = (Column("TOOL", flex=True, floor=16), Column("DESCRIPTION", flex=True))
    cells = [(r["name"], f"SKIPPED: {r['skipped']}" if r["skipped"] else r["description"]) for r in rows]
    print_table(columns, [(shown(name), shown(text)) for name, text in cells])  # a server's text: untrusted


async def _local_tools(server: str | None) -> list[dict[str, Any]]:
    from claw.cli.common import load
    from claw.mcp.manager import McpManager
    from claw.mcp.status import tool_rows

    paths, config = load()
    manager = McpManager.from_config(paths, config)
    if server is not None:
        _known(manager, server)
        manager.connections = {server: manager.connections[server]}
    try:
        await manager.ensure_started()
        return tool_rows(manager, server)
    finally:
        await manager.aclose()


def _known(manager: Any, name: str) -> None:
    from claw.errors import UsageError

    if name not in manager.connections:
        known = ", ".join(manager.connections) or "none"
        raise UsageError(f"no enabled MCP server {name!r} (configured: {known})")


@app.command("add", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def add(
    ctx: typer.Context,
    name: str = NameArg,
    url: str | None = typer.Option(None, "--url", help="A streamable HTTP server's URL (instead of a command)."),
    env: list[str] = typer.Option([], "--env", help="KEY=VALUE for the server's environment (not for secrets)."),
    env_from: list[str] = typer.Option([], "--env-from", help="KEY=VAR: the server's KEY from claw's $VAR."),
    header_env: list[str] = typer.Option([], "--header-env", help="HEADER=VAR: an HTTP header from $VAR."),
    approval: str = typer.Option("never", "--approval", help="always | never | on-write"),
    lazy: bool = typer.Option(False, "--lazy", help="Start on first use, not with the gateway."),
) -> None:
    """Add a server: `claw mcp add NAME -- COMMAND ARGS…` or `claw mcp add NAME --url URL`."""
    from claw.errors import UsageError

    command = list(ctx.args)
    if bool(command) == bool(url):
        raise UsageError("give a command after `--` (claw mcp add NAME -- npx -y server) or --url URL, not both")
    table: dict[str, Any] = {"url": url} if url else {"command": command[0], "args": command[1:]}
    for key, pairs in (("env", env), ("envFrom", env_from), ("headersEnv", header_env)):
        if pairs:
            table[key] = dict(_pair(p) for p in pairs)
    if approval != "never":
        table["approval"] = approval
    if lazy:
        table["startup"] = "lazy"
    _write({name: table}, replace=False)
    print(f"Added MCP server {name}. Try it: claw mcp test {name}")


def _pair(text: str) -> tuple[str, str]:
    from claw.errors import UsageError

    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def _write(servers: dict[str, dict[str, Any]], *, replace: bool) -> list[str]:
    """Add `servers` to config.toml; an existing name is an error unless `replace`. Returns the names kept."""
    import tomlkit

    from claw.config_edit import editing, ensure_table
    from claw.errors import UsageError
    from claw.paths import Paths

    written = []
    with editing(Paths.from_env().config_file) as doc:
        existing = ensure_table(doc, ("mcp", "servers"))
        for name, values in servers.items():
            if name in existing and not replace:
                raise UsageError(f"an MCP server named {name!r} exists; `claw mcp rm {name}` first")
            table = tomlkit.table()  # a [mcp.servers.NAME] table of its own; env maps stay inline
            for key, value in values.items():
                table[key] = _inline(value) if isinstance(value, dict) else value
            existing[name] = table
            written.append(name)
    return written


def _inline(values: dict[str, Any]) -> Any:
    import tomlkit

    table = tomlkit.inline_table()
    table.update(values)
    return table


@app.command("rm")
def rm(name: str = NameArg) -> None:
    """Remove a server from config.toml."""
    from claw.config_edit import editing, unset_value
    from claw.errors import UsageError
    from claw.paths import Paths

    with editing(Paths.from_env().config_file) as doc:
        if not unset_value(doc, ("mcp", "servers", name)):
            raise UsageError(f"no MCP server named {name!r} in config.toml")
    print(f"Removed MCP server {name}.")


@app.command("test")
def test(name: str = NameArg, json_out: bool = JsonOption) -> None:
    """Start the server, list its tools (calling none), stop it; with the time each step took."""
    import asyncio

    from claw.errors import ClawError

    report = asyncio.run(_test(name))
    if json_out:
        print_json(report)
    else:
        if report["state"] == "up":
            print(
                f"{name}: up in {report['startSeconds']:.2f} s, {len(report['tools'])} tools, "
                f"stopped in {report['stopSeconds']:.2f} s"
            )
            for tool in report["tools"]:
                print(f"  {shown(tool)}")
        else:
            print(f"{name}: failed to start: {report['error']}")
            if report["sees"]:
                print("What it sees in its sandbox (`binds` adds to it, `sandbox = false` turns it off):")
                for line in report["sees"]:
                    print(f"  {line}")
    if report["state"] != "up":
        raise ClawError(f"MCP server {name} did not start")


async def _test(name: str) -> dict[str, Any]:
    from claw.cli.common import load
    from claw.mcp.manager import McpManager
    from claw.mcp.sandboxing import what_it_sees

    _quiet_failures()
    paths, config = load()
    manager = McpManager.from_config(paths, config)
    _known(manager, name)
    connection = manager.connections[name]
    import time

    began = time.monotonic()
    connection.start()
    await connection.wait_first_attempt()
    started = time.monotonic()
    state, error = connection.status.state, connection.status.last_error
    tools = [t.name for t in connection.status.tools]
    await connection.aclose()
    failed_in_sandbox = state != "up" and connection.status.sandbox == "bwrap"
    sees = what_it_sees(connection.settings, connection.sandbox) if failed_in_sandbox else []
    return {
        "state": state,
        "error": error,
        "tools": tools,
        "startSeconds": round(started - began, 3),
        "stopSeconds": round(time.monotonic() - started, 3),
        "sees": sees,
    }


def _quiet_failures() -> None:
    """The command reports a server's failure itself: the connection's log line would say it twice."""
    import logging

    logging.getLogger("claw.mcp.connection").setLevel(logging.ERROR)


@app.command("import")
def import_(
    file: Path = typer.Argument(..., help="A Claude Desktop / Cursor JSON file with `mcpServers`."),
    replace: bool = typer.Option(False, "--replace", help="Overwrite servers of the same name."),
) -> None:
    """Copy the servers of an `mcpServers` JSON file into config.toml (secrets become env references)."""
    from claw.mcp.config_import import read_mcp_json

    imported = read_mcp_json(file)
    names = _write(imported.servers, replace=replace)
    print(f"Imported {len(names)} MCP server(s): {', '.join(names) or 'none'}")
    for line in imported.skipped:
        print(f"  skipped {line}")
    if imported.to_set:
        print("Secrets were not copied; set these in the gateway's environment: " + ", ".join(imported.to_set))


@app.command("resources")
def resources(name: str = NameArg, json_out: bool = JsonOption) -> None:
    """The resources a server offers."""
    import asyncio

    rows = asyncio.run(_listing(name, "resources"))
    _print_rows(rows, json_out, "uri", f"{name} offers no resources.")


@app.command("prompts")
def prompts(name: str = NameArg, json_out: bool = JsonOption) -> None:
    """The prompts a server offers, with their arguments."""
    import asyncio

    rows = asyncio.run(_listing(name, "prompts"))
    _print_rows(rows, json_out, "name", f"{name} offers no prompts.")


def _print_rows(rows: list[dict[str, Any]] | None, json_out: bool, key: str, none_offered: str) -> None:
    """`rows` None: the server does not offer the kind at all (it answered "Method not found")."""
    if json_out:
        print_json(rows or [])
        return
    if rows is None:
        print(none_offered)
        return
    for row in rows:
        print(shown(f"{row[key]}  {row.get('description') or ''}".rstrip()))
    if not rows:
        print("None.")


async def _listing(name: str, what: str) -> list[dict[str, Any]] | None:
    from mcp.shared.exceptions import MCPError
    from mcp_types import METHOD_NOT_FOUND

    from claw.cli.common import load
    from claw.errors import ClawError
    from claw.mcp.manager import McpManager

    paths, config = load()
    manager = McpManager.from_config(paths, config)
    _known(manager, name)
    connection = manager.connections[name]
    _quiet_failures()
    connection.start()
    try:
        await connection.wait_first_attempt()
        if connection.status.state != "up":
            raise ClawError(f"MCP server {name} did not start: {connection.status.last_error}")
        session = await connection.session()
        try:
            return await _listed(session, what)
        except MCPError as exc:
            if exc.code == METHOD_NOT_FOUND:  # a server that offers only tools, say
                return None
            raise ClawError(f"MCP server {name}: listing its {what} failed: {exc}") from None
    finally:
        await connection.aclose()


async def _listed(session: Any, what: str) -> list[dict[str, Any]]:
    if what == "resources":
        found = (await session.list_resources()).resources
        return [
            {"uri": str(r.uri), "name": r.name, "description": r.description, "mimeType": r.mime_type} for r in found
        ]
    listed = (await session.list_prompts()).prompts
    return [
        {"name": p.name, "description": p.description, "arguments": [a.name for a in p.arguments or ()]} for p in listed
    ]


@app.command("serve")
def serve() -> None:
    """Serve claw to MCP clients over stdio (to the running gateway, else an in-process one)."""
    import asyncio

    asyncio.run(_serve_stdio())


async def _serve_stdio() -> None:
    """`claw mcp serve`: over stdio, to the running gateway when one runs, else to one in this process."""
    from claw.cli.gateway_call import running_gateway_url

    url = running_gateway_url()
    client: Any
    if url is not None:
        from claw.client.remote import RemoteClient
        from claw.errors import ConfigError
        from claw.paths import Paths
        from claw.server.auth import TOKEN_ENV, resolve_token

        token, _source = resolve_token(Paths.from_env())
        if token is None:
            raise ConfigError(f"no gateway token to connect with: set {TOKEN_ENV} or run `claw init`")
        client = await RemoteClient.connect(url, token)
    else:
        from claw.cli.common import load
        from claw.client.local import LocalClient
        from claw.compose import build_gateway

        paths, config = load()
        client = LocalClient(build_gateway(paths, config))
    try:
        from claw.mcp.serve import build_server

        await build_server(client).run_stdio_async()
    finally:
        await client.close()
