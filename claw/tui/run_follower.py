"""`RunFollower`: sends the user's messages to the gateway as runs, and follows each run to its end.

A run accepted while another is still going waits in the queued list until it starts (its `RunView`
knows). Each run is followed by its own worker in the screen's "runs" group: every event goes to its
`RunView` and to the screen's `SubagentWatch`; when the run ends, the context gauge, the token counters
and the sessions sidebar are brought up to date. A run names no model: the gateway uses the session's
(see `SessionLoader`), so a model chosen in one session never leaks into another. A gateway command
answered at once (no run) becomes a notice — `/new` and `/reset` reload the session instead.
`follow_report` follows a turn the gateway started itself in this session (a subagent's report) the
same way, and `follow_foreign` one that another client, a channel or an automation started (the
`SessionFeed` sees it and feeds its events in); `abort_running` stops the run under way, or the one accepted
and not yet started (context assembly, a wait on an MCP server or a lane), or the message on its way to the
gateway as soon as it is accepted. `is_own` tells the feed which runs this console started itself, so none is
shown twice.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import deque
from typing import TYPE_CHECKING, Protocol

from claw.errors import ClawError
from claw.tui.chat_host import ChatSession, WorkerHost
from claw.tui.run_view import Panes, RunView

if TYPE_CHECKING:
    from claw.tui.widgets.conversation.conversation import Conversation
    from claw.tui.widgets.conversation.tool_card import ToolCard
    from claw.tui.widgets.events.events_pane import EventsPane
    from claw.tui.widgets.input.prompt_area import PromptArea
    from claw.tui.widgets.status.status_bar import StatusBar
    from claw.vocab.run_event import RunEvent

log = logging.getLogger(__name__)

GROUP = "runs"


class _Observer(Protocol):
    async def observe(self, event: RunEvent) -> None: ...


class FollowerHost(ChatSession, WorkerHost, Protocol):
    """What the follower uses of the chat screen: the panes a run draws into, the `SubagentWatch` that
    sees every event, and the reloads a run's end calls for."""

    conversation: Conversation
    events_pane: EventsPane
    status: StatusBar
    prompt: PromptArea

    @property
    def subagents(self) -> _Observer: ...

    def load_session(self, session_key: str, *, notice: str | None = None) -> object: ...

    def refresh_counters(self) -> object: ...

    def refresh_sidebar(self) -> object: ...

    def refresh_bindings(self) -> None: ...


class RunFollower:
    """The runs of the session on screen, by run id: `send` starts one, `reset` forgets them all."""

    def __init__(self, host: FollowerHost) -> None:
        self.host = host
        self.runs: dict[str, RunView] = {}
        """Runs being followed (queued or under way); each leaves when its events end."""
        self._sent: deque[str] = deque(maxlen=256)
        """The runs this console started in the session on screen (the feed skips them)."""
        self._foreign: set[str] = set()
        """The runs in `runs` that the `SessionFeed` feeds (started elsewhere)."""
        self._sending = 0
        self._abort_sent = False  # Esc while a message was on its way: abort its run once accepted
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def panes(self) -> Panes:
        host = self.host
        return Panes(host.conversation, host.events_pane, host.status, host.prompt.queued)

    @property
    def running(self) -> RunView | None:
        """The run under way (started, not ended), if any."""
        return next((v for v in self.runs.values() if v.started and v.outcome is None), None)

    @property
    def current(self) -> RunView | None:
        """The run an abort stops: the one under way, else the next to start (accepted, waiting on its
        context, an MCP server or a lane) — runs are kept in the order the gateway accepted them."""
        return self.running or next((v for v in self.runs.values() if v.outcome is None), None)

    @property
    def busy(self) -> bool:
        """A turn is on its way, accepted or under way: Esc and Ctrl+C abort it."""
        return bool(self._sending) or self.current is not None

    def reset(self) -> None:
        """Stop following (the screen is about to show another session; the runs go on in the gateway)."""
        self.host.cancel_workers(GROUP)
        self.runs.clear()
        self._foreign.clear()
        self._abort_sent = False
        self._sent.clear()  # back on this session later, its runs still going are shown as the feed sees them

    def is_own(self, run_id: str) -> bool:
        """Whether the run is one this console started (or follows already) in the session on screen."""
        return run_id in self.runs or run_id in self._sent

    async def settled(self) -> None:
        """Until no message is on its way to the gateway: its run id is known then (`is_own`)."""
        await self._idle.wait()

    async def send(self, text: str, *, command: str | None = None) -> None:
        """Start a run with `text` (`command`: the gateway command it names, if any)."""
        host = self.host
        self._sending += 1
        self._idle.clear()
        host.refresh_bindings()
        try:
            handle = await host.api.run(
                text,
                agent_id=host.agent_id,
                session_key=host.session_key,
                idempotency_key=uuid.uuid4().hex,
            )
        except ClawError as exc:
            await host.conversation.add_notice(f"✗ {exc.message}", "error")
            return
        else:
            if handle.run_id is not None:
                self._sent.append(handle.run_id)
        finally:
            self._sending -= 1
            abort = self._abort_sent and not self._sending
            if not self._sending:
                self._idle.set()
                self._abort_sent = False
            host.refresh_bindings()
        if handle.run_id is None:
            if handle.error is not None:  # `/bogus`, `/queue sideways`: shown as the error it is
                await host.conversation.add_notice(f"✗ {handle.reply}", "error")
                return
            await self._command_replied(command, handle.reply)
            return
        queued = any(view.outcome is None for view in self.runs.values())
        view = RunView(self.panes, handle.run_id, text, queued=queued)
        self.runs[view.run_id] = view  # Esc from here on aborts it
        if abort:
            self.abort_running()
        if not queued:
            await view.show_user_message()
        self._watch(view)

    def card_asked_about(self, request_id: str, command: str) -> ToolCard | None:
        """The card of the call an exec approval question is about, among the runs followed: a question
        names its command, not its call, so the first running call of that command not tied to another."""
        for view in self.runs.values():
            for card in view.cards.values():
                if card.asked_about(request_id, command):
                    return card
        return None

    def abort_running(self) -> None:
        """Ask the gateway to abort the current run (it ends as `aborted`); a message still on its way
        has its run aborted the moment the gateway accepts it."""
        view = self.current
        if view is not None:
            self.host.run_worker(self._abort(view.run_id), group="abort", name="abort", exit_on_error=False)
        elif self._sending:
            self._abort_sent = True

    async def _abort(self, run_id: str) -> None:
        await self.host.api.call("agent.abort", runId=run_id)

    def follow_report(self, run_id: str, notice: str) -> None:
        """Show a turn the gateway started in this session (a subagent's report), opening with `notice`."""
        if run_id not in self.runs:
            self._watch(RunView(self.panes, run_id, notice, queued=False, system=True))

    def follow_foreign(self, view: RunView) -> None:
        """Show a run another client, a channel or an automation started in this session; its events come
        from the `SessionFeed` (`apply_foreign`), not from a subscription of its own."""
        self.runs[view.run_id] = view
        self._foreign.add(view.run_id)
        self.host.refresh_bindings()

    async def apply_foreign(self, event: RunEvent) -> None:
        """The next event of a run `follow_foreign` shows; at its end the counters and sidebar catch up."""
        view = self.runs.get(event.run_id) if event.run_id in self._foreign else None
        if view is None:
            return
        await view.apply(event)
        await self.host.subagents.observe(event)
        if event.is_terminal:
            self.runs.pop(event.run_id, None)
            self._foreign.discard(event.run_id)
            self.host.refresh_bindings()
            self.host.refresh_counters()
            self.host.refresh_sidebar()

    def _watch(self, view: RunView) -> None:
        self.runs[view.run_id] = view
        self.host.refresh_bindings()
        self.host.run_worker(self._follow(view), group=GROUP, name=f"run {view.run_id[:8]}", exit_on_error=False)

    async def _command_replied(self, command: str | None, reply: str | None) -> None:
        host = self.host
        if command in ("new", "reset"):
            host.load_session(host.session_key, notice=reply)  # the old conversation goes, the reply stays
            return
        if reply:
            await host.conversation.add_notice(reply)
        host.refresh_counters()

    async def _follow(self, view: RunView) -> None:
        host = self.host
        try:
            async for event in host.api.events(view.run_id):
                await view.apply(event)
                await host.subagents.observe(event)
        except Exception as exc:  # the subscription broke (a remote gateway went away, a slow consumer)
            log.exception("lost the events of run %s", view.run_id)
            await host.conversation.add_notice(f"✗ lost this run's events: {exc}", "error")
            host.status.state = "error"
        finally:
            self.runs.pop(view.run_id, None)
            host.refresh_bindings()
        host.refresh_counters()
        host.refresh_sidebar()
