"""Whether one `exec` call runs sandboxed, and what it says when the sandbox it should use cannot run.

The rule (`sandbox.mode`, claw/settings/sandbox.py):

- `all` (the default) sandboxes every session; `non-main` all but the owner's main session; `off` none.
- The owner's main session is `agent:<id>:main` reached from the console, the CLI or an authenticated
  gateway client (WebSocket, HTTP API). A chat channel's direct messages share that session key under
  the default dmScope, but their sender is not the owner, so they count as non-main here.
- When a session should be sandboxed and bwrap cannot run: a session the owner drives (from those same
  clients, and not a subagent's) runs unsandboxed, and its first exec result of the process says so in
  one line; any other session — chat channels, automations, subagents, where what is asked may come
  from someone untrusted — refuses exec with one line naming the fix. Nothing claims a sandbox it does
  not have.
"""

from __future__ import annotations

from dataclasses import dataclass

from claw.settings.sandbox import SandboxSettings
from claw.tools.sandbox_probe import SandboxProbe

OWNER_CHANNELS = frozenset({"cli", "tui", "ws", "http"})
"""Where the owner talks from: the console, the CLI and clients holding the gateway token."""


@dataclass(frozen=True, slots=True)
class SandboxChoice:
    """Sandboxed or not; if not while it should be, either a `notice` to show once or a `refusal`."""

    sandboxed: bool
    notice: str | None = None
    refusal: str | None = None


def is_owner_main(agent_id: str, session_key: str, channel: str) -> bool:
    return session_key == f"agent:{agent_id}:main" and channel in OWNER_CHANNELS


def is_owner_driven(session_key: str, channel: str) -> bool:
    """The owner's own session: from an owner's client, and not a subagent's (`agent:<id>:subagent:<uuid>`)."""
    return channel in OWNER_CHANNELS and session_key.split(":")[2:3] != ["subagent"]


def choose(
    settings: SandboxSettings, probe: SandboxProbe, *, agent_id: str, session_key: str, channel: str
) -> SandboxChoice:
    owner_main = is_owner_main(agent_id, session_key, channel)
    wanted = settings.mode == "all" or (settings.mode == "non-main" and not owner_main)
    if not wanted:
        return SandboxChoice(sandboxed=False)
    if probe.usable:
        return SandboxChoice(sandboxed=True)
    off = f"`claw config set {_mode_key(agent_id)} off`"
    if is_owner_driven(session_key, channel):
        return SandboxChoice(
            sandboxed=False,
            notice=f"note: exec runs unsandboxed: {probe.detail}; {probe.fix}, or silence this with {off}",
        )
    return SandboxChoice(
        sandboxed=False,
        refusal=(
            f"exec refused: commands in this session ({session_key}, from {channel}) run only in the sandbox, "
            f"and {probe.detail}; {probe.fix}, or run them unsandboxed with {off}"
        ),
    )


def _mode_key(agent_id: str) -> str:
    """The config key of the agent's mode (the main agent's settings live in `[agents.defaults]`)."""
    scope = "agents.defaults" if agent_id == "main" else f"agents.list.{agent_id}"
    return f"{scope}.sandbox.mode"
