"""The events a hook receives: one frozen dataclass per event, its payload documented field by field.

The gateway fires them into its `HookBus` (`claw.gateway.hook_points` says where; `agent:bootstrap`
comes from the hooks capability's bootstrap filter), so the core owns them, as it owns the run-event
vocabulary. Hook handlers import them as `claw.hooks.events`.

An event's name is `type:action` (`command:new`). A hook that lists a bare type (`command`)
receives every action of it. Every event carries `state_dir` (claw's data directory), a
`session_key` when it concerns a session, an ISO-8601 UTC `timestamp`, and `messages`: text a
hook appends there is added to the reply of a command event and logged for the others.

Which events are awaited: `agent:bootstrap` and the command events run before the run or the
reply goes on (each hook under its timeout); the others run in the background, in order, and
a closing gateway waits for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from claw.store.session_entry import SessionEntry
from claw.store.transcript import utc_now_iso

if TYPE_CHECKING:
    from claw.gateway.hook_model import HookModel

EVENT_NAMES = (
    "gateway:startup",
    "command:new",
    "command:reset",
    "command:stop",
    "agent:bootstrap",
    "message:received",
    "message:sent",
    "run:end",
)
"""Every event claw fires; a hook may also name a type alone (`command`, `message`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HookEvent:
    """What every event has."""

    NAME: ClassVar[str] = ""
    state_dir: Path
    session_key: str | None = None
    timestamp: str = field(default_factory=utc_now_iso)
    messages: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.NAME

    @property
    def type(self) -> str:
        return self.name.partition(":")[0]

    @property
    def action(self) -> str:
        return self.name.partition(":")[2]

    def to_json(self) -> dict[str, Any]:
        """The payload as JSON-ready data (paths as strings, the model handle left out)."""
        data = {"event": self.name, **{f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.repr}}
        return {_camel(key): value for key, value in data.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class GatewayStartup(HookEvent):
    """`gateway:startup`: a long-lived gateway (`claw gateway run`, `claw chat`) started its services."""

    NAME: ClassVar[str] = "gateway:startup"
    agent_ids: tuple[str, ...]
    workspace: Path
    """The main agent's workspace."""
    config_path: Path


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandEvent(HookEvent):
    """`command:new`, `command:reset` (after the session got its new id) and `command:stop`."""

    command: str
    """`new`, `reset` or `stop`."""
    agent_id: str
    workspace: Path
    channel: str
    sender_id: str
    args: str
    session: SessionEntry | None = None
    """The session as it is now (for /new and /reset: the fresh one)."""
    previous_session: SessionEntry | None = None
    """/new and /reset: the session that just ended (None if there was none)."""
    previous_transcript: Path | None = None
    """/new and /reset: where the ended session's transcript is now (in `archive/`), if it has one."""
    model: HookModel | None = field(default=None, repr=False, compare=False)
    """The session's models, for a short completion (None when no model is configured)."""

    @property
    def name(self) -> str:
        return f"command:{self.command}"


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentBootstrap(HookEvent):
    """`agent:bootstrap`, once per run before the first prompt: change `files` to change what is injected.

    `files` is the list of (name, content) pairs the system prompt will hold, in order (each
    already cut to the per-file cap). Append, remove, reorder or replace pairs in place; a new
    or changed file is cut to the caps again. A hook that fails or times out changes nothing.
    """

    NAME: ClassVar[str] = "agent:bootstrap"
    agent_id: str
    run_id: str
    workspace: Path
    channel: str
    files: list[tuple[str, str]]


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageReceived(HookEvent):
    """`message:received`: an inbound message passed dedupe (fired for slash commands too, before they run)."""

    NAME: ClassVar[str] = "message:received"
    agent_id: str
    channel: str
    account_id: str
    chat_type: str
    sender_id: str
    sender_name: str | None
    peer_id: str
    thread_id: str | None
    message_id: str | None
    content: str
    system_event: bool = False
    """A note from claw itself (an automation, a finished subagent), not from a person."""
    lane: str = "main"
    """`main` for messages, `cron` for automations, `subagent` for child runs."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageSent(HookEvent):
    """`message:sent`: a reply went out (the console and CLI: a run's final text; channels: on delivery)."""

    NAME: ClassVar[str] = "message:sent"
    channel: str
    to: str
    content: str
    success: bool = True
    error: str | None = None
    agent_id: str | None = None
    run_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunEnd(HookEvent):
    """`run:end`: a run ended, with its outcome (`status` ok | error | aborted)."""

    NAME: ClassVar[str] = "run:end"
    agent_id: str
    run_id: str
    channel: str
    lane: str
    message: str
    """The text that started the run."""
    status: str
    text: str
    error: str | None
    usage: dict[str, int]
    started_at: float | None
    ended_at: float | None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _plain(value: Any) -> Any:
    if isinstance(value, SessionEntry):
        return value.to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return {_camel(f.name): _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
