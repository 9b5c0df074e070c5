"""Rows describing servers and tools, the same for `claw mcp ls`/`tools`, the `mcp.*` methods and `/mcp`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from claw.mcp.sandboxing import planned_sandbox
from claw.mcp.tool import one_line

if TYPE_CHECKING:
    from claw.mcp.manager import McpManager


def server_rows(manager: McpManager) -> list[dict[str, Any]]:
    rows = []
    for name, connection in manager.connections.items():
        settings, status = connection.settings, connection.status
        rows.append(
            {
                "name": name,
                "transport": "stdio" if settings.command else settings.transport,
                "target": settings.command and " ".join((settings.command, *settings.args)) or settings.url,
                "state": status.state,
                "tools": sum(1 for t in manager.tools.values() if t.connection is connection),
                "skipped": len(manager.skipped.get(name, {})),
                "restarts": status.restarts,
                "startedInSeconds": None if status.started_in is None else round(status.started_in, 3),
                "lastError": status.last_error,
                "approval": settings.approval,
                "startup": settings.startup,
                "sandbox": status.sandbox or planned_sandbox(connection.name, connection.settings, connection.sandbox),
            }
        )
    return rows


def tool_rows(manager: McpManager, server: str | None = None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [
        {
            "server": t.connection.name,
            "name": t.name,
            "description": one_line(t.text),
            "readOnly": t.read_only,
            "schemaChars": len(json.dumps(t.parameters)),
            "skipped": "",
        }
        for t in manager.tools.values()
        if server in (None, t.connection.name)
    ]
    for name, skipped in manager.skipped.items():
        if server in (None, name):
            rows += [
                {
                    "server": name,
                    "name": f"{name}__{tool}",
                    "description": "",
                    "readOnly": False,
                    "schemaChars": 0,
                    "skipped": reason,
                }
                for tool, reason in skipped.items()
            ]
    return rows


def schema_share(schemas: list[dict[str, Any]], manager: McpManager) -> tuple[int, int]:
    """(characters of all tool schemas, of which MCP's) in a turn's `tools` list."""
    mcp_names = {*manager.tools, "mcp_tool_search"}
    total = mcp = 0
    for schema in schemas:
        size = len(json.dumps(schema, ensure_ascii=False))
        total += size
        if schema.get("function", {}).get("name") in mcp_names:
            mcp += size
    return total, mcp
