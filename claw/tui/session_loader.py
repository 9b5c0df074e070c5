"""`SessionLoader`: what the chat screen asks the gateway when it connects, and when it shows a session.

On connecting it learns the agent's models and context window and the slash commands the gateway
answers, then loads the session. Loading a session forgets the old one's runs and subagents, shows the
last `HISTORY_LIMIT` messages (a greeting when there are none, the no-model panel when nothing could
answer), the subagents still under way, the token counters and the model, and seeds the input history.
A method an older gateway may lack falls back to a default (`optional`). The screen runs each of these
in its own exclusive worker, so a failure becomes a notice in the conversation.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from claw.errors import ClawError
from claw.tui import slash
from claw.tui.chat_host import ChatSession
from claw.tui.history_widgets import history_widgets, user_inputs
from claw.tui.widgets.conversation.no_model_panel import NoModelPanel
from claw.tui.widgets.conversation.notice import Notice

if TYPE_CHECKING:
    from claw.tui.widgets.conversation.conversation import Conversation
    from claw.tui.widgets.input.prompt_area import PromptArea
    from claw.tui.widgets.sessions.sessions_sidebar import SessionsSidebar
    from claw.tui.widgets.status.status_bar import StatusBar

log = logging.getLogger(__name__)

HISTORY_LIMIT = 200


class _Runs(Protocol):
    def reset(self) -> None: ...


class _Subagents(Protocol):
    def reset(self) -> None: ...

    async def resume(self, rows: list[dict[str, Any]]) -> None: ...


class LoaderHost(ChatSession, Protocol):
    """What the loader uses of the chat screen: the panes it fills, the `RunFollower` and `SubagentWatch`
    it resets on a switch, and the screen's workers for loading a session and the sidebar."""

    conversation: Conversation
    prompt: PromptArea
    status: StatusBar
    sidebar: SessionsSidebar

    @property
    def follower(self) -> _Runs: ...

    @property
    def subagents(self) -> _Subagents: ...

    def load_session(self, session_key: str, *, notice: str | None = None) -> object: ...

    def refresh_sidebar(self) -> object: ...


class SessionLoader:
    """Fills the chat screen's panes from the gateway, for the session in `host.session_key`."""

    def __init__(self, host: LoaderHost) -> None:
        self.host = host

    async def connect(self) -> None:
        """Learn about the agent and the commands, then load the session."""
        host = self.host
        info = await self.optional("agents.get", {}, agentId=host.agent_id)
        host.agent_models = list(info.get("models") or [])
        host.context_tokens = info.get("contextTokens")
        commands = await self.optional("commands.list", [])
        host.prompt.catalog = slash.SlashCatalog(commands)
        host.load_session(host.session_key)

    async def optional(self, method: str, default: Any, **params: Any) -> Any:
        """A method an older gateway may lack: its default then."""
        try:
            return await self.host.api.call(method, **params)
        except ClawError as exc:
            log.info("%s unavailable: %s", method, exc)
            return default

    async def load(self, session_key: str, *, notice: str | None = None) -> None:
        """Show `session_key`: its last messages (then `notice`), its counters, and it marked in the sidebar."""
        host, status = self.host, self.host.status
        host.follower.reset()
        host.subagents.reset()
        host.prompt.queued.clear()
        host.session_key = session_key
        status.session_key = session_key
        status.queued = 0
        status.state = "idle"
        status.context_pct = None
        history = await host.api.call(
            "chat.history", agentId=host.agent_id, sessionKey=session_key, limit=HISTORY_LIMIT
        )
        entry = await self.session_row()
        session_model = entry.get("model") if entry else None
        host.has_model = bool(host.model_override or session_model or host.agent_models)
        widgets = history_widgets(history["messages"])
        if not widgets:
            widgets.append(Notice(f"{session_key} · Enter sends · /help lists commands and keys · Ctrl+D quits"))
        if notice:
            widgets.append(Notice(notice))
        if not host.has_model:
            widgets.insert(0, NoModelPanel())
        await host.conversation.replace(widgets)
        await host.subagents.resume(await self.optional("subagents.list", [], sessionKey=session_key))
        host.prompt.input.inputs.seed(user_inputs(history["messages"]))
        self.show_counters(entry)
        chain = host.agent_models
        status.model = host.model_override or session_model or (chain[0] if chain else None)
        host.refresh_sidebar()

    async def session_row(self) -> dict[str, Any] | None:
        """The session's `sessions.get` row; None for a session with no turns yet."""
        host = self.host
        try:
            return await host.api.call("sessions.get", agentId=host.agent_id, sessionKey=host.session_key)
        except ClawError:
            return None  # a session with no turns yet

    def show_counters(self, entry: dict[str, Any] | None) -> None:
        """Put the session's token counters (from its row) in the status bar."""
        entry = entry or {}
        self.host.status.tokens_in = int(entry.get("inputTokens") or 0)
        self.host.status.tokens_out = int(entry.get("outputTokens") or 0)

    async def refresh_counters(self) -> None:
        self.show_counters(await self.session_row())

    async def refresh_sidebar(self) -> None:
        """List the agent's sessions in the sidebar, when it is shown."""
        host = self.host
        if host.sidebar.display:
            host.sidebar.show(await host.api.call("sessions.list", agentId=host.agent_id), host.session_key)
