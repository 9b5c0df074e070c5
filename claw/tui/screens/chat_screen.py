"""`ChatScreen`: the console's main screen — sessions sidebar, conversation, run-events pane,
prompt and status bar — and the glue between them and the gateway client.

Loading (history, session info, the sessions list) runs in exclusive workers; each accepted
run is followed by its own worker feeding a `RunView`; the subagents those runs spawn are
tracked by `SubagentWatch`, which also hands over their report turns (`follow_report`).
Local slash commands live in `ConsoleCommands`; everything else is sent to the gateway as a message.
"""

from __future__ import annotations

import logging
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from claw.errors import ClawError, GatewayUnavailable
from claw.gateway.client_protocol import GatewayClient
from claw.tui import slash
from claw.tui.console_commands import ConsoleCommands
from claw.tui.history_widgets import history_widgets, user_inputs
from claw.tui.run_view import Panes, RunView
from claw.tui.subagents_watch import SubagentWatch
from claw.tui.widgets.conversation.conversation import Conversation
from claw.tui.widgets.conversation.no_model_panel import NoModelPanel
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.events.events_pane import EventsPane
from claw.tui.widgets.input.chat_input import ChatInput
from claw.tui.widgets.input.prompt_area import PromptArea
from claw.tui.widgets.sessions.sessions_sidebar import SessionsSidebar
from claw.tui.widgets.status.status_bar import StatusBar
from claw.tui.widgets.subagents.subagent_row import SubagentRow

if TYPE_CHECKING:
    from claw.tui.file_picker import FilePicked  # these modules import the command palette: lazily
    from claw.tui.session_picker import SessionPicked

log = logging.getLogger(__name__)

HISTORY_LIMIT = 200
QUIT_WINDOW_SECONDS = 2.0


class ChatScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("escape", "escape", "Abort", priority=True),
        Binding("ctrl+c", "interrupt", "Clear", priority=True, show=False),
        Binding("ctrl+d", "app.quit", "Quit", priority=True),
        Binding("ctrl+o", "toggle_tools", "Tools"),
        Binding("ctrl+b", "toggle_sessions", "Sessions"),
        Binding("ctrl+t", "toggle_events", "Events"),
        Binding("ctrl+p", "pick_session", "Pick session"),
        Binding("f2", "pick_file", "Edit file"),
    ]

    def __init__(self, *, agent_id: str, session_key: str, model: str | None) -> None:
        super().__init__()
        self.client: GatewayClient | None = None
        """Set by the app once connected (`attach`); until then the status bar says "connecting"."""
        self.agent_id = agent_id
        self.session_key = session_key
        self.model_override = model
        """The model sent with every run (`/model`); None: the session's or the agent's own."""
        self.agent_models: list[str] = []
        self.context_tokens: int | None = None
        self.has_model = True
        self.runs: dict[str, RunView] = {}
        self.commands = ConsoleCommands(self)
        self.subagents = SubagentWatch(self)
        self._interrupted_at = 0.0

    def compose(self) -> ComposeResult:
        # Kept as attributes (not queried) so a worker finishing during shutdown never fails a lookup.
        self.sidebar = SessionsSidebar(id="sidebar")
        self.conversation = Conversation(id="conversation")
        self.prompt = PromptArea(id="prompt-area")
        self.events_pane = EventsPane(id="events")
        self.status = StatusBar(id="status")
        with Horizontal(id="main"):
            yield self.sidebar
            with Vertical(id="center"):
                yield self.conversation
                yield self.prompt
            yield self.events_pane
        yield self.status
        yield Footer()

    @property
    def panes(self) -> Panes:
        return Panes(self.conversation, self.events_pane, self.status, self.prompt.queued)

    # --- loading ---------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.status.agent_id = self.agent_id
        self.status.session_key = self.session_key
        self.prompt.input.focus()
        if self.client is None:
            self.status.state = "connecting"
        else:
            self.connect()

    @property
    def api(self) -> GatewayClient:
        """The gateway client; a user-facing error while the connection is still being opened."""
        if self.client is None:
            raise GatewayUnavailable("still connecting to the gateway; try again in a moment")
        return self.client

    def attach(self, client: GatewayClient) -> None:
        """Use `client` from now on (the app calls this once its connection is open)."""
        self.client = client
        if self.is_mounted:
            self.connect()

    @work(exclusive=True, group="connect", exit_on_error=False)
    async def connect(self) -> None:
        info = await self._optional("agents.get", {}, agentId=self.agent_id)
        self.agent_models = list(info.get("models") or [])
        self.context_tokens = info.get("contextTokens")
        commands = await self._optional("commands.list", [])
        self.prompt.catalog = slash.SlashCatalog(commands)
        self.load_session(self.session_key)

    async def _optional(self, method: str, default: Any, **params: Any) -> Any:
        """A method an older gateway may lack: its default then."""
        try:
            return await self.api.call(method, **params)
        except ClawError as exc:
            log.info("%s unavailable: %s", method, exc)
            return default

    @work(exclusive=True, group="session", exit_on_error=False)
    async def load_session(self, session_key: str, *, notice: str | None = None) -> None:
        """Show `session_key`: its last messages (then `notice`), its counters, and it marked in the sidebar."""
        self.workers.cancel_group(self, "runs")  # runs of the old session go on in the gateway
        self.runs.clear()
        self.subagents.reset()
        self.prompt.queued.clear()
        self.session_key = session_key
        self.status.session_key = session_key
        self.status.queued = 0
        self.status.state = "idle"
        self.status.context_pct = None
        history = await self.api.call(
            "chat.history", agentId=self.agent_id, sessionKey=session_key, limit=HISTORY_LIMIT
        )
        entry = await self._session_row()
        session_model = entry.get("model") if entry else None
        self.has_model = bool(self.model_override or session_model or self.agent_models)
        widgets = history_widgets(history["messages"])
        if not widgets:
            widgets.append(Notice(f"{session_key} · Enter sends · /help lists commands and keys · Ctrl+D quits"))
        if notice:
            widgets.append(Notice(notice))
        if not self.has_model:
            widgets.insert(0, NoModelPanel())
        await self.conversation.replace(widgets)
        await self.subagents.resume(await self._optional("subagents.list", [], sessionKey=session_key))
        self.prompt.input.inputs.seed(user_inputs(history["messages"]))
        self._show_counters(entry)
        chain = self.agent_models
        self.status.model = self.model_override or session_model or (chain[0] if chain else None)
        self.refresh_sidebar()

    async def _session_row(self) -> dict[str, Any] | None:
        try:
            return await self.api.call("sessions.get", agentId=self.agent_id, sessionKey=self.session_key)
        except ClawError:
            return None  # a session with no turns yet

    def _show_counters(self, entry: dict[str, Any] | None) -> None:
        entry = entry or {}
        self.status.tokens_in = int(entry.get("inputTokens") or 0)
        self.status.tokens_out = int(entry.get("outputTokens") or 0)

    @work(exclusive=True, group="info", exit_on_error=False)
    async def refresh_counters(self) -> None:
        self._show_counters(await self._session_row())

    @work(exclusive=True, group="sidebar", exit_on_error=False)
    async def refresh_sidebar(self) -> None:
        if self.sidebar.display:
            self.sidebar.show(await self.api.call("sessions.list", agentId=self.agent_id), self.session_key)

    # --- sending and following runs ---------------------------------------------------------------

    async def on_chat_input_submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        parsed = slash.parse(event.text)
        command = self.prompt.catalog.get(parsed[0]) if parsed else None
        if command is not None and command.local:
            await self.commands.run(command.name, parsed[1] if parsed else "")
            return
        if command is None and not self.has_model:
            await self.conversation.add_notice("No model configured: see the panel above, or use /model.", "error")
            return
        await self.send(event.text, command=command.name if command else None)

    async def send(self, text: str, *, command: str | None = None) -> None:
        try:
            handle = await self.api.run(
                text,
                agent_id=self.agent_id,
                session_key=self.session_key,
                idempotency_key=uuid.uuid4().hex,
                model=self.model_override,
            )
        except ClawError as exc:
            await self.conversation.add_notice(f"✗ {exc.message}", "error")
            return
        if handle.run_id is None:
            await self._command_replied(command, handle.reply)
            return
        queued = any(view.outcome is None for view in self.runs.values())
        view = RunView(self.panes, handle.run_id, text, queued=queued)
        if not queued:
            await view.show_user_message()
        self._watch(view)

    def follow_report(self, run_id: str, notice: str) -> None:
        """Show a turn the gateway started in this session (a subagent's report), opening with `notice`."""
        if run_id not in self.runs:
            self._watch(RunView(self.panes, run_id, notice, queued=False, system=True))

    def _watch(self, view: RunView) -> None:
        self.runs[view.run_id] = view
        self.run_worker(self._follow(view), group="runs", name=f"run {view.run_id[:8]}", exit_on_error=False)

    async def _command_replied(self, command: str | None, reply: str | None) -> None:
        if command in ("new", "reset"):
            self.load_session(self.session_key, notice=reply)  # the old conversation goes, the reply stays
            return
        if reply:
            await self.conversation.add_notice(reply)
        self.refresh_counters()

    async def _follow(self, view: RunView) -> None:
        try:
            async for event in self.api.events(view.run_id):
                await view.apply(event)
                await self.subagents.observe(event)
        except Exception as exc:  # the subscription broke (a remote gateway went away, a slow consumer)
            log.exception("lost the events of run %s", view.run_id)
            await self.conversation.add_notice(f"✗ lost this run's events: {exc}", "error")
            self.status.state = "error"
        finally:
            self.runs.pop(view.run_id, None)
        prompt = view.prompt_tokens()
        if prompt and self.context_tokens:
            self.status.context_pct = min(100.0, 100.0 * prompt / self.context_tokens)
        self.refresh_counters()
        self.refresh_sidebar()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failed load or call becomes a line in the conversation, never a crashed console."""
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        error = event.worker.error
        log.error("%s failed: %r", event.worker.name, error, exc_info=error)
        text = error.message if isinstance(error, ClawError) else f"{type(error).__name__}: {error}"
        self.conversation.mount(Notice(f"✗ {text}", "error"))

    @property
    def running(self) -> RunView | None:
        return next((v for v in self.runs.values() if v.started and v.outcome is None), None)

    # --- keys ------------------------------------------------------------------------------------

    def action_escape(self) -> None:
        if self.prompt.close_completions():
            return
        view = self.running
        if view is not None:
            self.abort(view.run_id)

    @work(group="abort", exit_on_error=False)
    async def abort(self, run_id: str) -> None:
        await self.api.call("agent.abort", runId=run_id)

    def on_subagent_row_stop_requested(self, event: SubagentRow.StopRequested) -> None:
        event.stop()
        self.stop_subagent(event.run_id)

    @work(group="abort", exit_on_error=False)
    async def stop_subagent(self, run_id: str) -> None:
        """Stop one child; it ends as `aborted` and its parent session hears of it."""
        reply = await self.api.call("subagents.abort", runId=run_id)
        if not reply.get("aborted"):
            self.notify("That subagent had already ended.", timeout=3)

    def action_interrupt(self) -> None:
        now = time.monotonic()
        if now - self._interrupted_at < QUIT_WINDOW_SECONDS:
            self.app.exit()
            return
        self._interrupted_at = now
        self.prompt.input.set_text("")
        self.prompt.close_completions()
        self.notify("Input cleared. Press Ctrl+C again to quit.", timeout=QUIT_WINDOW_SECONDS)

    def action_toggle_tools(self) -> None:
        self.conversation.toggle_tools()

    def action_toggle_sessions(self) -> None:
        self.sidebar.display = not self.sidebar.display
        self.refresh_sidebar()

    def action_toggle_events(self) -> None:
        self.events_pane.display = not self.events_pane.display

    def action_pick_session(self) -> None:
        from textual.command import CommandPalette

        from claw.tui.session_picker import SessionsProvider

        self.app.push_screen(CommandPalette(providers=[SessionsProvider], placeholder="Switch to session…"))

    def action_pick_file(self) -> None:
        from textual.command import CommandPalette

        from claw.tui.file_picker import WorkspaceFilesProvider

        self.app.push_screen(CommandPalette(providers=[WorkspaceFilesProvider], placeholder="Edit workspace file…"))

    async def on_file_picked(self, event: FilePicked) -> None:
        await self.commands.run("edit", event.name)

    def on_session_picked(self, event: SessionPicked) -> None:
        self.load_session(event.session_key)

    def on_sessions_sidebar_selected(self, event: SessionsSidebar.Selected) -> None:
        self.load_session(event.session_key)
