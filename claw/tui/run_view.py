"""`RunView`: turns one run's `RunEvent`s into what the panes show.

The conversation gets the user message (when the run starts — until then it waits in the
queued list), assistant text streamed into an `AssistantMessage`, and a `ToolCard` per tool
call; every event goes to the events pane; the status bar follows the run state.
Text after a tool round opens a new assistant message, so text and tools stay in order.
The model's reasoning (the `thinking` stream) goes into a collapsed `ThinkingBlock` per model call, above
that call's text, never into the reply.
A turn the gateway started itself (a subagent's report) opens with a notice instead of a user message.
A turn another client or a channel started (`origin` says where from) shows its message when it starts,
under a line naming that origin.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from claw.tui.markdown_chunks import CHUNK_CHARS, last_block_start
from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.conversation import Conversation
from claw.tui.widgets.conversation.thinking_block import ThinkingBlock
from claw.tui.widgets.conversation.tool_card import ToolCard
from claw.tui.widgets.events.events_pane import EventsPane
from claw.tui.widgets.input.queued_list import QueuedList
from claw.tui.widgets.status.status_bar import StatusBar
from claw.vocab.run_event import TRUNCATED_LENGTH, TRUNCATED_NOTE, Phase, RunEvent, Stream, ToolPhase


@dataclass(frozen=True, slots=True)
class Panes:
    """The widgets a run draws into."""

    conversation: Conversation
    events: EventsPane
    status: StatusBar
    queued: QueuedList


class RunView:
    """One run; `apply` each event in order. `outcome` is set by the terminal event."""

    def __init__(
        self,
        panes: Panes,
        run_id: str,
        message: str,
        *,
        queued: bool,
        system: bool = False,
        origin: str | None = None,
        shown: bool = False,
    ) -> None:
        self.panes = panes
        self.run_id = run_id
        self.message = message
        self.queued = queued and not system
        self.system = system
        """Not the user's turn: `message` is shown as a notice when it starts, and never listed as queued."""
        self.origin = origin
        """Started elsewhere (e.g. `from telegram · Ann`): said above its message, which shows when it starts."""
        self._shown = shown  # its message is on screen already (in the history loaded while it ran)
        self.started = False
        self.outcome: Phase | None = None
        """The run's terminal phase, once it has ended."""
        self.assistant: AssistantMessage | None = None
        self.streamed = False
        self.thinking: ThinkingBlock | None = None
        """The current model call's reasoning, while it streams."""
        self._split_at = CHUNK_CHARS
        self.cards: dict[str, ToolCard] = {}
        if self.queued:
            panes.queued.add(run_id, message)
            panes.status.queued = panes.queued.count

    async def show_user_message(self) -> None:
        """Put the user's message in the conversation (at once when nothing else is running)."""
        await self.panes.conversation.add_user(self.message)

    async def apply(self, event: RunEvent) -> None:
        self.panes.events.record(event)
        if event.stream == Stream.ASSISTANT:
            await self._delta(str(event.data.get("delta", "")))
        elif event.stream == Stream.TOOL:
            await self._tool(event.data)
        elif event.stream == Stream.THINKING:
            await self._thinking(str(event.data.get("delta", "")))
        else:
            await self._lifecycle(str(event.phase), event.data)

    async def _lifecycle(self, phase: str, data: dict[str, Any]) -> None:
        status = self.panes.status
        match phase:
            case Phase.START:
                await self._start()
                status.model = data.get("model") or status.model
                status.state = "thinking"
            case Phase.FAILOVER:
                status.model = data.get("to") or status.model
                await self.panes.conversation.add_notice(
                    f"⚠ {data.get('from')} failed ({data.get('reason')}); trying {data.get('to')}", "warning"
                )
            case Phase.BUDGET:  # a `warn` budget's limit reached: the run goes on, once per limit and period
                await self.panes.conversation.add_notice(f"⚠ {data.get('message')}", "warning")
            case Phase.WARNING:  # e.g. the server cut the prompt (claw/agent/truncation_check.py): once per session
                await self.panes.conversation.add_notice(f"⚠ {data.get('message')}", "warning")
            case Phase.END:
                if not self.streamed and data.get("text"):  # the deltas were missed (joined late): show the reply
                    await self._delta(str(data["text"]))
                await self._close_text()
                if data.get("truncated") == TRUNCATED_LENGTH:  # cut by the output limit: say so, and how to go on
                    await self.panes.conversation.add_notice(TRUNCATED_NOTE, "warning")
                await self._finish(Phase.END, "idle")
            case Phase.ERROR:  # one line says it failed, and why: the text streamed so far stays as it was
                await self._start()
                await self._close_text()
                await self.panes.conversation.add_notice(f"✗ {data.get('message')}", "error")
                await self._finish(Phase.ERROR, "error")
            case Phase.ABORTED:
                await self._aborted()

    async def _start(self) -> None:
        if self.started:
            return
        self.started = True
        if self._shown:
            return
        if self.system:
            await self.panes.conversation.add_notice(self.message)
        elif self.origin is not None:
            await self.panes.conversation.add_notice(f"↘ {self.origin}")
            await self.show_user_message()
        elif self.queued:
            self.panes.queued.take(self.run_id)
            self.panes.status.queued = self.panes.queued.count
            await self.show_user_message()

    async def _thinking(self, delta: str) -> None:
        if not delta:
            return
        if self.thinking is None:
            self.thinking = ThinkingBlock()
            await self.panes.conversation.add(self.thinking)
        self.thinking.write(delta)

    def _end_thinking(self) -> None:
        """The call's reasoning is over: its block says so, and the next call's reasoning gets a new one."""
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None

    async def _delta(self, delta: str) -> None:
        if not delta:
            return
        self._end_thinking()
        self.streamed = True
        if self.assistant is None:
            self.assistant = await self.panes.conversation.add_assistant()
        self.panes.status.state = "streaming"
        await self.assistant.write(delta)
        if len(self.assistant.text) >= self._split_at:
            await self._split()

    async def _split(self) -> None:
        """Continue a long reply in a new Markdown widget, cut at a block boundary (see `markdown_chunks`)."""
        assert self.assistant is not None
        text = self.assistant.text
        cut = last_block_start(text)
        if cut < CHUNK_CHARS // 2:  # one big block so far (a long code block): wait for the next one
            self._split_at = len(text) + CHUNK_CHARS // 4
            return
        tail = await self.assistant.cut(cut)
        self.assistant = await self.panes.conversation.add_assistant(continuation=True)
        self._split_at = CHUNK_CHARS
        await self.assistant.write(tail)

    async def _tool(self, data: dict[str, Any]) -> None:
        call_id = str(data.get("toolCallId", ""))
        if data.get("phase") == ToolPhase.START:
            self._end_thinking()
            await self._close_text()
            started = ToolCard(call_id, str(data.get("name", "?")), data.get("args"), started=time.monotonic())
            self.cards[call_id] = started
            await self.panes.conversation.add(started)
            self.panes.status.state = "running tool"
            return
        card = self.cards.get(call_id)
        if card is None:  # a result without a start (joined late): show it finished
            card = ToolCard(call_id, str(data.get("name", "?")), None)
            self.cards[call_id] = card
            await self.panes.conversation.add(card)
        card.finish(is_error=bool(data.get("isError")), result=str(data.get("result") or ""))
        if all(c.status != "running" for c in self.cards.values()):
            self.panes.status.state = "thinking"  # the results go back to the model

    async def _close_text(self, note: str | None = None) -> None:
        """End the current assistant message (the next text, after tools, gets a new one)."""
        if self.assistant is not None:
            await self.assistant.finish(note)
            self.assistant = None
            self._split_at = CHUNK_CHARS

    async def _aborted(self) -> None:
        if (self.system or self.origin is not None) and not self.started:  # not shown (a report: noted for later)
            pass
        elif not self.started:
            self.panes.queued.take(self.run_id)
            self.panes.status.queued = self.panes.queued.count
            await self.panes.conversation.add_notice(f"⏹ not sent (stopped while queued): {self.message}", "warning")
        elif self.assistant is not None:
            await self._close_text("⏹ aborted")
        else:
            await self.panes.conversation.add_notice("⏹ aborted", "warning")
        await self._finish(Phase.ABORTED, "idle")

    async def _finish(self, outcome: Phase, state: str) -> None:
        self.outcome = outcome
        self._end_thinking()
        for card in self.cards.values():
            if card.status == "running":
                card.finish(is_error=True, result="(no result: the run ended)")
        self.panes.status.state = state
