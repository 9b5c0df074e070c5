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
from typing import TYPE_CHECKING, Any

from claw.errors import ClawError
from claw.tui import slash
from claw.tui.history_widgets import history_widgets, user_inputs
from claw.tui.widgets.conversation.no_model_panel import NoModelPanel
from claw.tui.widgets.conversation.notice import Notice

if TYPE_CHECKING:
    from claw.tui.screens.chat_screen import ChatScreen

log = logging.getLogger(__name__)

HISTORY_LIMIT = 200


class SessionLoader:
    """Fills the chat screen's panes from the gateway, for the session in `screen.session_key`."""

    def __init__(self, screen: ChatScreen) -> None:
        self.screen = screen

    async def connect(self) -> None:
        """Learn about the agent and the commands, then load the session."""
        screen = self.screen
        info = await self.optional("agents.get", {}, agentId=screen.agent_id)
        screen.agent_models = list(info.get("models") or [])
        screen.context_tokens = info.get("contextTokens")
        commands = await self.optional("commands.list", [])
        screen.prompt.catalog = slash.SlashCatalog(commands)
        screen.load_session(screen.session_key)

    async def optional(self, method: str, default: Any, **params: Any) -> Any:
        """A method an older gateway may lack: its default then."""
        try:
            return await self.screen.api.call(method, **params)
        except ClawError as exc:
            log.info("%s unavailable: %s", method, exc)
            return default

    async def load(self, session_key: str, *, notice: str | None = None) -> None:
        """Show `session_key`: its last messages (then `notice`), its counters, and it marked in the sidebar."""
        screen, status = self.screen, self.screen.status
        screen.follower.reset()
        screen.subagents.reset()
        screen.prompt.queued.clear()
        screen.session_key = session_key
        status.session_key = session_key
        status.queued = 0
        status.state = "idle"
        status.context_pct = None
        history = await screen.api.call(
            "chat.history", agentId=screen.agent_id, sessionKey=session_key, limit=HISTORY_LIMIT
        )
        entry = await self.session_row()
        session_model = entry.get("model") if entry else None
        screen.has_model = bool(screen.model_override or session_model or screen.agent_models)
        widgets = history_widgets(history["messages"])
        if not widgets:
            widgets.append(Notice(f"{session_key} · Enter sends · /help lists commands and keys · Ctrl+D quits"))
        if notice:
            widgets.append(Notice(notice))
        if not screen.has_model:
            widgets.insert(0, NoModelPanel())
        await screen.conversation.replace(widgets)
        await screen.subagents.resume(await self.optional("subagents.list", [], sessionKey=session_key))
        screen.prompt.input.inputs.seed(user_inputs(history["messages"]))
        self.show_counters(entry)
        chain = screen.agent_models
        status.model = screen.model_override or session_model or (chain[0] if chain else None)
        screen.refresh_sidebar()

    async def session_row(self) -> dict[str, Any] | None:
        """The session's `sessions.get` row; None for a session with no turns yet."""
        screen = self.screen
        try:
            return await screen.api.call("sessions.get", agentId=screen.agent_id, sessionKey=screen.session_key)
        except ClawError:
            return None  # a session with no turns yet

    def show_counters(self, entry: dict[str, Any] | None) -> None:
        """Put the session's token counters (from its row) in the status bar."""
        entry = entry or {}
        self.screen.status.tokens_in = int(entry.get("inputTokens") or 0)
        self.screen.status.tokens_out = int(entry.get("outputTokens") or 0)

    async def refresh_counters(self) -> None:
        self.show_counters(await self.session_row())

    async def refresh_sidebar(self) -> None:
        """List the agent's sessions in the sidebar, when it is shown."""
        screen = self.screen
        if screen.sidebar.display:
            screen.sidebar.show(await screen.api.call("sessions.list", agentId=screen.agent_id), screen.session_key)
