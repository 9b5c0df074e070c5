"""`claw mcp add` and `claw mcp import`: `[mcp.servers.<name>]` tables from the command line or from a
Claude Desktop / Cursor style `mcpServers` JSON file.

Such files carry secrets inline (`"env": {"GITHUB_TOKEN": "ghp_…"}`, `"headers": {"Authorization": …}`).
claw does not copy them into config.toml: a secret-looking variable and every header become references
to environment variables (`envFrom`, `headersEnv`), and the import says which variables to set.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claw.errors import ConfigError
from claw.redact import is_secret_key


@dataclass(frozen=True, slots=True)
class Imported:
    """The servers read from a file, and the variables the user must now set."""

    servers: dict[str, dict[str, Any]]
    to_set: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def read_mcp_json(path: Path) -> Imported:
    """The `mcpServers` (or `servers`, VS Code's key) of `path` as claw server tables."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: not JSON ({exc})") from None
    servers = data.get("mcpServers", data.get("servers")) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: no `mcpServers` object (the Claude Desktop / Cursor format)")
    out: dict[str, dict[str, Any]] = {}
    to_set: list[str] = []
    skipped: list[str] = []
    for raw_name, raw in servers.items():
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", str(raw_name)).strip("-").replace("__", "_") or "server"
        if not isinstance(raw, dict) or not (raw.get("command") or raw.get("url")):
            skipped.append(f"{raw_name}: neither `command` nor `url`")
            continue
        out[name] = _table(name, raw, to_set)
    return Imported(out, to_set, skipped)


def _table(name: str, raw: dict[str, Any], to_set: list[str]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    if raw.get("command"):
        table["command"] = str(raw["command"])
        if raw.get("args"):
            table["args"] = [str(a) for a in raw["args"]]
    else:
        table["url"] = str(raw["url"])
        if raw.get("type") == "sse" or raw.get("transport") == "sse":
            table["transport"] = "sse"
    env, env_from = {}, {}
    for key, value in (raw.get("env") or {}).items():
        if is_secret_key(key) or _looks_secret(str(value)):
            env_from[key] = key
            to_set.append(key)
        else:
            env[key] = str(value)
    headers_env = {}
    for header in raw.get("headers") or {}:
        var = "MCP_" + re.sub(r"[^A-Z0-9]+", "_", f"{name}_{header}".upper()).strip("_")
        headers_env[header] = var
        to_set.append(var)
    for key, value in (("env", env), ("envFrom", env_from), ("headersEnv", headers_env)):
        if value:
            table[key] = value
    if raw.get("disabled"):
        table["enabled"] = False
    return table


def _looks_secret(value: str) -> bool:
    """Token-shaped values (`ghp_…`, `sk-…`, long random strings) are treated as secrets whatever the key."""
    return bool(re.match(r"^(ghp_|gho_|github_pat_|sk-|xox[bp]-|glpat-)", value)) or (
        len(value) >= 32 and not any(c in value for c in " /\\") and any(c.isdigit() for c in value)
    )
