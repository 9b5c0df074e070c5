"""`ChatScreen`: the console's main screen — sessions sidebar, conversation, run-events pane,
prompt and status bar — composed from the parts that do the work, with the keys that drive them.

`SessionLoader` fills the panes when the screen connects and whenever it shows a session; the
screen runs each of its steps in an exclusive worker, so a failure becomes a notice. A submitted
line is a local slash command (`ConsoleCommands`) or a message sent to the gateway as a run, which
`RunFollower` follows to its end through a `RunView`; the subagents those runs spawn are tracked
by `SubagentWatch`, which hands their report turns back to the `RunFollower`. Runs that others start in
the session on screen (another client, a channel, an automation) come from the `SessionFeed`. A line
submitted before the console is ready (connected, and its first session loaded) waits in the queued list
and is sent then, as is each line typed before the first frame (`typed_ahead`).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from claw.client.protocol import GatewayClient
from claw.errors import ClawError, GatewayUnavailable
from claw.tui.console_commands import ConsoleCommands
from claw.tui.run_follower import RunFollower
from claw.tui.run_view import RunView
from claw.tui.session_feed import SessionFeed
from claw.tui.session_loader import SessionLoader
from claw.tui.subagents_watch import SubagentWatch
from claw.tui.widgets.conversation.conversation import Conversation
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.events.events_pane import EventsPane
from claw.tui.widgets.input.chat_input import ChatInput
from claw.tui.widgets.input.prompt_area import PromptArea
from claw.tui.widgets.sessions.sessions_sidebar import SessionsSidebar
from claw.tui.widgets.status.status_bar import StatusBar
from claw.tui.widgets.subagents.subagent_row import SubagentRow
from claw.vocab.command_syntax import parse_command

if TYPE_CHECKING:
    from textual.timer import Timer

    from claw.tools.base import ApprovalRequest
    from claw.tui.file_picker import FilePicked  # these modules import the command palette: lazily
    from claw.tui.session_picker import SessionPicked
    from claw.tui.widgets.conversation.tool_card import ToolCard

log = logging.getLogger(__name__)

QUIT_WINDOW_SECONDS = 2.0
MCP_POLL_SECONDS = 5.0
"""How often the status bar asks for the MCP servers' state (only while any are configured)."""


class ChatScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#prompt"  # focused as the screen is composed: a key read before that would go to no widget

    BINDINGS = [
        # One key, the binding that applies now (`check_action`), so the footer names it: Esc aborts the
        # turn (closing the popup in the same press) or closes the popup; Ctrl+C aborts the turn, or clears
        # the input when idle (twice: quits).
        Binding("escape", "abort", "Abort", priority=True),
        Binding("escape", "close_popup", "Close", priority=True),
        Binding("ctrl+c", "abort", "Abort", priority=True, show=False),
        Binding("ctrl+c", "interrupt", "Clear", priority=True, show=False),
        Binding("ctrl+d", "app.quit", "Quit", priority=True),
        Binding("ctrl+o", "toggle_tools", "Tools"),
        Binding("ctrl+b", "toggle_sessions", "Sessions"),
        Binding("ctrl+t", "toggle_events", "Events"),
        Binding("ctrl+p", "pick_session", "Pick session"),
        Binding("f2", "pick_file", "Edit file"),
    ]

    def __init__(
        self,
        *,
        agent_id: str,
        session_key: str,
        model: str | None,
        services_notice: str | None = None,
        typed_ahead: str = "",
    ) -> None:
        super().__init__()
        self.typed_ahead = typed_ahead
        """Typed before the first frame (`claw.tui.typeahead`): the complete lines are sent once ready, the rest
        is left in the prompt."""
        self.ready = False
        """Connected, and the first session loaded: a line submitted before waits in the queued list till then."""
        self.services_notice = services_notice
        """Why this console runs no background services, if it runs none (shown in the status bar)."""
        self.client: GatewayClient | None = None
        """Set by the app once connected (`attach`); until then the status bar says "connecting"."""
        self.agent_id = agent_id
        self.session_key = session_key
        self.opening_model = model
        """`claw chat --model`: stored with the session the console opens, once connected (`SessionLoader`)."""
        self.session_model: str | None = None
        """The model stored with the session on screen (`/model`); None: the agent's own. Runs name no
        model: the gateway uses the session's, so every client of the session gets the same one."""
        self.agent_models: list[str] = []
        self._where: str | None = None  # where the gateway runs (`GatewayClient.where`), once connected
        self.has_model = True
        self.loader = SessionLoader(self)
        self.follower = RunFollower(self)
        self.commands = ConsoleCommands(self)
        self.subagents = SubagentWatch(self)
        self.feed = SessionFeed(self)
        self._interrupted_at = 0.0
        self._mcp_poll: Timer | None = None

    def compose(self) -> ComposeResult:
        # Kept as attributes (not queried) so a worker finishing during shutdown never fails a lookup.
        self.sidebar = SessionsSidebar(id="sidebar")
        self.conversation = Conversation(id="conversation")
        self.prompt = PromptArea(id="prompt-area")
        self.events_pane = EventsPane(id="events")
        self.status = StatusBar(id="status")
        self.status.notice = self.services_notice
        with Horizontal(id="main"):
            yield self.sidebar
            with Vertical(id="center"):
                yield self.conversation
                yield self.prompt
            yield self.events_pane
        yield self.status
        yield Footer()

    @property
    def runs(self) -> dict[str, RunView]:
        """The runs being followed (queued or under way), by run id."""
        return self.follower.runs

    # --- loading (the work is the `SessionLoader`'s; each step runs in its own worker) -------------

    def on_mount(self) -> None:
        self.status.agent_id = self.agent_id
        self.status.where = self._where
        self.status.session_key = self.session_key
        self.prompt.input.focus()
        *lines, rest = self.typed_ahead.split("\n")
        for line in filter(str.strip, lines):
            self._keep_until_ready(line)
        if rest:
            self.prompt.input.set_text(rest)
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
        self._where = client.where
        if self.is_mounted:
            self.status.where = self._where
            self.connect()

    @work(exclusive=True, group="connect", exit_on_error=False)
    async def connect(self) -> None:
        await self.loader.connect()
        self.refresh_mcp()
        if self._mcp_poll is None:  # once, though a console may connect again
            self._mcp_poll = self.set_interval(MCP_POLL_SECONDS, self._poll_mcp)

    def _poll_mcp(self) -> None:
        if self.status.mcp is not None:  # servers are configured: they may come up or go down meanwhile
            self.refresh_mcp()

    @work(exclusive=True, group="mcp", exit_on_error=False)
    async def refresh_mcp(self) -> None:
        """`mcp 2/3` in the status bar: servers up of those configured, as the gateway's `mcp.status` says."""
        try:
            rows = await self.api.call("mcp.status")
        except ClawError as exc:  # a gateway without MCP (an older one): no entry, and no notice every poll
            log.info("mcp.status: %s", exc)
            rows = []
        up = sum(1 for row in rows if row.get("state") == "up")
        self.status.mcp = (up, len(rows)) if rows else None

    @work(exclusive=True, group="session", exit_on_error=False)
    async def load_session(self, session_key: str, *, notice: str | None = None) -> None:
        """Show `session_key`: its last messages (then `notice`), its counters, and it marked in the sidebar."""
        try:
            await self.loader.load(session_key, notice=notice)
        finally:
            if not self.ready:  # the first load: the console is ready, what waited for it goes now
                self.ready = True
                self.refresh_bindings()
                self.send_waiting()

    @work(exclusive=True, group="waiting", exit_on_error=False)
    async def send_waiting(self) -> None:
        """Send the lines submitted before the console was ready, in order."""
        waiting = self.prompt.queued.take_waiting()
        self.status.queued = self.prompt.queued.count
        for text in waiting:
            await self.submit(text)

    @work(exclusive=True, group="session-feed", exit_on_error=False)
    async def follow_session(self, session_key: str, shown_runs: frozenset[str] = frozenset()) -> None:
        """Show what others send into `session_key` as it happens (until another session is shown)."""
        await self.feed.follow(session_key, shown_runs)

    @work(exclusive=True, group="info", exit_on_error=False)
    async def refresh_counters(self) -> None:
        await self.loader.refresh_counters()
        if self.status.mcp is not None:  # a turn may have started a lazy server
            self.refresh_mcp()

    @work(exclusive=True, group="sidebar", exit_on_error=False)
    async def refresh_sidebar(self) -> None:
        await self.loader.refresh_sidebar()

    def cancel_workers(self, group: str) -> None:
        """Cancel this screen's workers of `group` (a helper's, when the screen switches sessions)."""
        self.workers.cancel_group(self, group)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failed load or call becomes a line in the conversation, never a crashed console."""
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        error = event.worker.error
        log.error("%s failed: %r", event.worker.name, error, exc_info=error)
        text = error.message if isinstance(error, ClawError) else f"{type(error).__name__}: {error}"
        self.conversation.mount(Notice(f"✗ {text}", "error"))

    # --- sending (local commands run here; the rest are runs, followed by the `RunFollower`) -----------

    async def on_chat_input_submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        await self.submit(event.text)

    async def submit(self, text: str) -> None:
        """Run `text` as a local command or send it to the gateway; before the console is ready, keep it till then."""
        if not self.ready:
            self._keep_until_ready(text)
            return
        parsed = parse_command(text)
        command = self.prompt.catalog.get(parsed[0]) if parsed else None
        if command is not None and command.local:
            await self.commands.run(command.name, parsed[1] if parsed else "")
            return
        if command is None and not self.has_model:
            await self.conversation.add_notice("No model configured: see the panel above, or use /model.", "error")
            return
        await self.follower.send(text, command=command.name if command else None)

    def _keep_until_ready(self, text: str) -> None:
        self.prompt.queued.wait(text)
        self.status.queued = self.prompt.queued.count
        self.refresh_bindings()  # Esc takes it back

    # --- exec approvals (the app shows the question; the call's card shows the wait) ------------------

    def approval_asked(self, request: ApprovalRequest, since: float) -> None:
        """The user is asked about `request` (since `since`, monotonic): its card says it is waiting."""
        if card := self._card_asked_about(request):
            card.approval_asked(request.id, since)

    def approval_answered(self, request: ApprovalRequest, since: float, at: float) -> None:
        """The user answered `request` at `at`: its card counts the wait apart from the run time."""
        if card := self._card_asked_about(request):
            card.approval_answered(request.id, since, at)

    def _card_asked_about(self, request: ApprovalRequest) -> ToolCard | None:
        if request.session_key != self.session_key:
            return None  # a run of a session not on screen: no card of it is shown
        return self.follower.card_asked_about(request.id, request.command)

    # --- keys ------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "abort":
            return self.follower.busy or bool(self.prompt.queued.waiting)
        if action == "close_popup":
            return self.prompt.popup.is_open
        return True

    def action_abort(self) -> None:
        """Esc or Ctrl+C with a turn on its way (sent, accepted or under way): abort it; with lines waiting for the
        console to be ready: take them back."""
        self.prompt.close_completions()
        if self.prompt.queued.waiting:
            taken = self.prompt.queued.take_waiting()
            self.notify("\n".join(f"⏹ not sent: {text}" for text in taken), severity="warning", markup=False)
            self.status.queued = self.prompt.queued.count
            self.refresh_bindings()
            return
        self.follower.abort_running()

    def action_close_popup(self) -> None:
        self.prompt.close_completions()

    def on_subagent_row_stop_requested(self, event: SubagentRow.StopRequested) -> None:
        event.stop()
        self.subagents.stop(event.run_id)

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

    def open_editor(self, name: str) -> None:
        """Edit the workspace file `name` (a resolved name such as `SOUL.md`) in the editor, over this screen."""
        from claw.tui.screens.editor_screen import EditorScreen  # (TextArea: loaded when first used)

        self.app.push_screen(EditorScreen(self.api, self.agent_id, name))

    async def on_file_picked(self, event: FilePicked) -> None:
        await self.commands.run("edit", event.name)

    def on_session_picked(self, event: SessionPicked) -> None:
        self.load_session(event.session_key)

    def on_sessions_sidebar_selected(self, event: SessionsSidebar.Selected) -> None:
        self.load_session(event.session_key)
