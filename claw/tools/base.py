"""The `Tool` boundary: what a tool is, what it is given, what it returns."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:  # kept out of import time: remote clients use ApprovalRequest without loading config
    from claw.config import AgentSettings
    from claw.tools.allow_entry import AllowEntry

Decision = Literal["allow-once", "allow-always", "deny"]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What the model gets back from a tool call."""

    text: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A question to the user: may this command run here?"""

    id: str
    agent_id: str
    session_key: str
    command: str
    cwd: str
    reason: str
    tool: str = "exec"
    """The tool that asks: `exec`, or an MCP tool's `<server>__<tool>` (the dialog names it)."""
    allow_always: bool = True
    """Whether "always" can be remembered for it: not for a command with a redirection, a substitution
    or another form no allowlist entry can match; then only "once" and "deny" are offered."""


class Approvals(Protocol):
    """Exec approvals: the persisted allowlist and a way to ask the user."""

    def allowlist(self, agent_id: str) -> list[AllowEntry]: ...

    def remember(self, agent_id: str, entry: AllowEntry, command: str) -> None: ...

    async def ask(self, request: ApprovalRequest) -> Decision | None:
        """The user's decision, or None when nobody is there to ask."""
        ...


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Everything a tool may use while it runs for one run of one agent."""

    workspace: Path
    agent_id: str
    session_key: str
    run_id: str
    settings: AgentSettings
    approvals: Approvals
    read_roots: tuple[Path, ...] = field(default_factory=tuple)
    """Extra directories `read` may read from (installed and bundled skills)."""
    channel: str = "cli"
    """Where the run's message came from: `cli`, `tui`, a chat channel, or `cron` for an automation."""
    sender_authorized: bool = True
    """The message's sender is the operator or one the channel authorised (`MsgContext.command_authorized`);
    owner-only tools (`automations`) refuse to act otherwise."""
    denied_tools: Mapping[str, str] = field(default_factory=dict)
    """Tools this run may not call (a subagent session's limits), each with the reason given to the model."""
    skill_env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Variables the agent's eligible skills are configured with (`skills.entries.<k>.env`, `apiKey` → the
    skill's primaryEnv); `exec` adds them for names the environment does not already set. May hold secrets:
    kept out of repr, never logged."""
    notice: Callable[[str], None] = field(default=lambda message: None, repr=False, compare=False)
    """Tells the run's watchers that the call waits (one line, e.g. "waiting for MCP server files"); the
    runner turns it into a `warning` lifecycle event. A no-op outside a run."""

    def approval_request(
        self, command: str, reason: str, *, tool: str = "exec", allow_always: bool = True
    ) -> ApprovalRequest:
        """A question for the user about `command` in this run (a fresh id, this agent, session and workspace)."""
        return ApprovalRequest(
            id=uuid.uuid4().hex,
            agent_id=self.agent_id,
            session_key=self.session_key,
            command=command,
            cwd=str(self.workspace),
            reason=reason,
            tool=tool,
            allow_always=allow_always,
        )


class Tool(Protocol):
    """A built-in or extension tool. `parameters` is a JSON Schema object. Read-only: a tool may hold them in
    a frozen dataclass (MCP's tools do)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


def tool_schema(tool: Tool) -> dict[str, Any]:
    """The OpenAI `tools=[…]` entry for `tool`."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }
