"""`claw doctor`'s MCP check: can each enabled server start, as far as can be told without starting it,
and, when a gateway runs, is it up there.

Starting servers from the doctor would run arbitrary commands with side effects; `claw mcp test NAME`
does that on request. Here: the command exists, every `envFrom`/`headersEnv` variable is set, and a
running gateway's `mcp.status` says whether the server is up (with its last error when it is not).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from claw.config import Config
from claw.finding import Finding, combine, fail, ok, warn
from claw.paths import Paths


def check_mcp(paths: Paths, config: Config) -> Finding:
    servers = {name: s for name, s in config.mcp.servers.items() if s.enabled}
    if not servers:
        return ok("mcp", "no MCP servers configured")
    problems: list[Finding] = []
    for name, server in servers.items():
        if server.command is not None and shutil.which(server.command, path=_path(server.env)) is None:
            problems.append(fail("mcp", f"{name}: command {server.command!r} not found", "install it or fix `command`"))
        for key, var in {**server.env_from, **server.headers_env}.items():
            if var not in os.environ:
                problems.append(fail("mcp", f"{name}: {key} comes from ${var}, which is not set", f"export {var}=…"))
    problems += _sandbox_findings(paths, config, servers)
    for row in _live(paths):
        if row["state"] != "up":
            detail = f"{row['name']} is {row['state']} in the running gateway: {row['lastError'] or 'no error yet'}"
            problems.append(warn("mcp", detail, f"claw mcp test {row['name']}; see logs/mcp-{row['name']}.log"))
    return combine("mcp", problems, f"{len(servers)} server(s) configured: {', '.join(servers)}")


def _sandbox_findings(paths: Paths, config: Config, servers: dict[str, Any]) -> list[Finding]:
    """A stdio server that should be sandboxed but cannot be: run as is (warn), or refused (fail)."""
    from claw.mcp.sandboxing import SandboxContext, decide
    from claw.tools.sandbox_probe import probe_sandbox

    context, probe, found = SandboxContext.from_config(paths, config), probe_sandbox(), []
    for name, server in servers.items():
        decision = decide(name, server, context, probe)
        if decision.refusal is not None:
            found.append(fail("mcp", f"{name}: does not start: {decision.refusal}", probe.fix))
        elif decision.shown.startswith("off: "):
            found.append(warn("mcp", f"{name}: runs unsandboxed ({decision.shown[5:]})", probe.fix))
    return found


def _path(env: dict[str, str]) -> str | None:
    return env.get("PATH") or os.environ.get("PATH")


def _live(paths: Paths) -> list[dict[str, Any]]:
    """The running gateway's server rows, or nothing when no gateway runs (or it cannot be asked)."""
    from claw.server.runtime_file import read_runtime

    if read_runtime(paths) is None:
        return []
    from claw.cli.gateway_call import call_gateway
    from claw.errors import ClawError

    try:
        rows = call_gateway("mcp.status", timeout=5)
    except (ClawError, OSError):
        return []
    return rows if isinstance(rows, list) else []
