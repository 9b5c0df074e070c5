"""Whether a stdio MCP server runs under bubblewrap, and the sandbox it gets (claw/tools/sandbox.py's spec).

A server is sandboxed when its `sandbox` setting says so or, left unset, when any agent it serves has a
`sandbox.mode` other than `off` (a server is shared by every session of those agents, so `non-main`
counts as on). It then sees what an exec command sees — the system read-only, claw's state dirs and the
user's home as empty (throwaway) tmpfs, a private /tmp, its own PID namespace that dies with the gateway —
with these differences, because a server is a long-lived program the user installed rather than one
command line:

- the network is allowed (servers call APIs, fetch packages);
- writable: its `cwd`, the workspaces of the agents it serves, every directory named in its `args`
  (the convention by which a server is handed its roots: `mcp-server-filesystem /home/me/notes`), and the
  download caches of `npx`/`uvx`;
- read-only: what its command needs to run (claw/mcp/command_needs.py: the install prefix of the binary,
  of a script's interpreter and of the Python a venv was made from, a node package's `node_modules`, the
  folders of file arguments), and the agents' `sandbox.binds` plus the server's own `binds`.

Without a usable bwrap, a server left to the default runs unsandboxed and says so (`claw mcp ls`, the
doctor); one with an explicit `sandbox = true` does not start: nothing claims a sandbox it does not have.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from claw.settings.sandbox import Bind, parse_bind
from claw.tools.sandbox import SandboxSpec

if TYPE_CHECKING:
    from claw.config import Config
    from claw.paths import Paths
    from claw.settings.mcp import McpServerSettings
    from claw.tools.sandbox_probe import SandboxProbe


@dataclass(frozen=True, slots=True)
class AgentSandbox:
    """One agent as a server's sandbox sees it: whether it wants sandboxing, its workspace, its binds."""

    mode_on: bool
    workspace: Path
    binds: tuple[Bind, ...]


@dataclass(frozen=True, slots=True)
class SandboxContext:
    """What the gateway's config says about sandboxing, for every server (built once per manager)."""

    agents: Mapping[str, AgentSandbox]
    hidden: tuple[Path, ...]
    """claw's state dirs and the user's homes, hidden as exec hides them."""

    @classmethod
    def from_config(cls, paths: Paths, config: Config) -> SandboxContext:
        from claw.workspace import workspace_dir

        agents = {}
        for agent_id in config.agent_ids:
            sandbox = config.agent(agent_id).sandbox
            agents[agent_id] = AgentSandbox(
                sandbox.mode != "off", workspace_dir(paths, config, agent_id), sandbox.parsed_binds()
            )
        return cls(agents, (paths.config_dir, paths.data_dir, *_homes()))

    def served(self, settings: McpServerSettings) -> list[AgentSandbox]:
        if "*" in settings.agents:
            return list(self.agents.values())
        return [self.agents[a] for a in settings.agents if a in self.agents]


@dataclass(frozen=True, slots=True)
class Decision:
    """Sandboxed or not, and the one line `claw mcp ls` shows; `refusal` when it must not start at all."""

    sandboxed: bool
    shown: str
    refusal: str | None = None


def decide(name: str, settings: McpServerSettings, context: SandboxContext | None, probe: SandboxProbe) -> Decision:
    if settings.command is None:
        return Decision(False, "n/a (remote)")
    explicit = settings.sandbox
    if explicit is False:
        return Decision(False, "off (sandbox = false)")
    if explicit is None and (context is None or not any(a.mode_on for a in context.served(settings))):
        return Decision(False, "off (sandbox.mode = off)")
    if probe.usable:
        return Decision(True, "bwrap")
    if explicit:
        refusal = (  # the way out first: the error line is cut at 300 characters
            f"mcp.servers.{name}.sandbox = true, but {probe.detail}: `claw config set mcp.servers.{name}.sandbox "
            f"false`, or {probe.fix}"
        )
        return Decision(False, f"refused: {probe.detail}", refusal)
    return Decision(False, f"off: {probe.detail}")  # the fix: in `claw doctor`


def server_spec(
    settings: McpServerSettings, context: SandboxContext | None, command: str, env: Mapping[str, str] | None = None
) -> SandboxSpec:
    """The spec for a server whose command resolved to `command` (an absolute path), run with environment
    `env` (the variables it gets: where npm's and uv's caches are); what the command needs comes from
    claw/mcp/command_needs.py."""
    from claw.mcp.command_needs import derive

    served = context.served(settings) if context is not None else []
    workspaces = [a.workspace for a in served if a.workspace.is_dir()]
    cwd = Path(settings.cwd).expanduser() if settings.cwd else None
    home = cwd if cwd is not None else (workspaces[0] if workspaces else None)
    hidden = context.hidden if context is not None else ()
    needs = derive(command, settings.args, env or server_env(settings), cwd=cwd or Path.cwd(), hidden=hidden)
    writable = [w for w in (*workspaces, *needs.writable) if w != home]
    binds = [Bind(str(w), str(w), True) for w in writable]
    binds += [b for agent in served for b in agent.binds]
    binds += [parse_bind(spec) for spec in settings.binds]
    return SandboxSpec(
        workspace=home,
        hidden=hidden,
        read_only=tuple(dict.fromkeys(needs.read_only)),
        binds=tuple(dict.fromkeys(binds)),
        network=True,
    )


def server_env(settings: McpServerSettings, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a stdio server runs with, but for its `envFrom` secrets: the SDK's default variables
    (PATH, HOME …), the cache locations from claw's environment, its own `env`."""
    from mcp.client.stdio import get_default_environment

    from claw.mcp.command_needs import server_environment

    return get_default_environment() | server_environment(settings.env, os.environ if environ is None else environ)


def _system(path: Path) -> bool:
    from claw.tools.sandbox import SYSTEM_PATHS

    text = os.path.abspath(path)
    return text == "/" or any(text == s or text.startswith(s + "/") for s in SYSTEM_PATHS)


def _homes() -> list[Path]:
    """The user's home as $HOME says and as the account says (as exec hides them; they can differ)."""
    import pwd

    homes = {Path.home()}
    with contextlib.suppress(KeyError):  # a uid without a passwd entry (some containers)
        homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
    return sorted(homes)


def resolve_command(command: str, env: Mapping[str, str]) -> str | None:
    """The command's path as the SDK would run it (PATH from the server's environment, else claw's)."""
    return shutil.which(command, path=env.get("PATH") or os.environ.get("PATH"))


async def stdio_argv(
    name: str, settings: McpServerSettings, context: SandboxContext | None
) -> tuple[list[str], Decision]:
    """The argv that starts stdio server `name` (under bwrap when it is sandboxed), and the decision.
    Raises ConfigError when it must not start (an explicit `sandbox = true` without a usable bwrap)."""
    import asyncio

    from claw.errors import ConfigError
    from claw.tools.sandbox import bwrap_argv
    from claw.tools.sandbox_probe import probe_sandbox

    assert settings.command is not None
    plain = [settings.command, *settings.args]
    probe = await asyncio.to_thread(probe_sandbox)  # runs bwrap once per process, then cached
    decision = decide(name, settings, context, probe)
    if decision.refusal is not None:
        raise ConfigError(decision.refusal)
    if not decision.sandboxed or probe.bwrap is None:
        return plain, decision
    env = server_env(settings)
    command = resolve_command(settings.command, env)
    if command is None:
        raise FileNotFoundError(f"{settings.command!r} is not on PATH")
    spec = server_spec(settings, context, command, env)
    return bwrap_argv(probe.bwrap, spec, [command, *settings.args]), decision


_SANDBOX_SIGNS = (
    "No such file",
    "ENOENT",
    "Cannot find",
    "not found",
    "Read-only file system",
    "EROFS",
    "Permission denied",
    "EACCES",
    "execvp",
)


_WRITE_REFUSED = ("Read-only file system", "EROFS")
"""A write the sandbox refused: the folder is shown, but read-only."""


def sandbox_hint(name: str, error: str) -> str | None:
    """For a sandboxed server that failed with a missing or unwritable file: the one setting that fixes it.
    A refused write: `write_refused_hint`. A missing file: a bind of the last path the error names that exists
    outside the sandbox. Else turning its sandbox off. None when the error does not look like the sandbox's."""
    if not any(sign in error for sign in _SANDBOX_SIGNS):
        return None
    refused = write_refused_hint(name, error)
    if refused is not None:
        return refused
    for path in _paths(error):
        if path.exists() and not _system(path):
            return f"the sandbox may hide {path}: `claw config set mcp.servers.{name}.binds '[\"{path}\"]'`"
    return f"if the sandbox is the cause: `claw config set mcp.servers.{name}.sandbox false`"


def write_refused_hint(name: str, error: str) -> str | None:
    """For a sandboxed server whose write failed as read-only (at start-up, or in a tool call): the path, the
    folder the sandbox shows read-only, and the read-write bind of that folder that lets it write there."""
    if not any(sign in error for sign in _WRITE_REFUSED):
        return None
    for path in _paths(error):
        folder = path if path.is_dir() else path.parent
        if folder.is_dir() and not _system(folder):
            return (f"the sandbox refused the write to {path}: it shows {folder} read-only; to let the server "
                    f"write there: `claw config set mcp.servers.{name}.binds '[\"{folder}:rw\"]'`")  # fmt: skip
    return None


def _paths(error: str) -> list[Path]:
    """The absolute paths an error names, the last first (the one the error is about)."""
    import re

    return [Path(m.group(1).rstrip(".")) for m in re.finditer(r"(?:file://)?(/[^\s'\"`:,;()|]+)", error)][::-1]


def what_it_sees(settings: McpServerSettings, sandbox: SandboxContext | None) -> list[str]:
    """For `claw mcp test` of a sandboxed server that failed: the paths it is shown, as lines."""
    env = server_env(settings)
    command = resolve_command(settings.command or "", env) if settings.command else None
    if command is None:
        return []
    spec = server_spec(settings, sandbox, command, env)
    lines = ["the system (/usr, /etc …) read-only; /tmp private and empty"]
    if spec.workspace is not None:
        lines.append(f"read-write, the working directory: {spec.workspace}")
    lines += [f"read-only: {p}" for p in spec.read_only]
    lines += [
        f"{'read-write' if b.writable else 'read-only'}: {b.source}"
        + (f" at {b.target}" if b.target != b.source else "")
        for b in spec.binds
    ]
    lines += [f"hidden (empty): {p}" for p in dict.fromkeys(spec.hidden) if p.is_dir()]
    return lines


def planned_sandbox(name: str, settings: McpServerSettings, sandbox: SandboxContext | None) -> str:
    """How server `name`, not started yet, would run (the probe is cached after its first run)."""
    from claw.tools.sandbox_probe import probe_sandbox

    if settings.command is None:
        return "n/a (remote)"
    return decide(name, settings, sandbox, probe_sandbox()).shown
