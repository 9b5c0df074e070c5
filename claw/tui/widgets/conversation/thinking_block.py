"""`ThinkingBlock`: the model's reasoning for one model call, apart from its reply.

Collapsed by default to one dim line — `▸ thinking… · 1,204 chars` while it streams, `▸ thought for
3.2 s · 1,204 chars` once the reply (or a tool call) begins — that expands (Enter, Space or a click) to the text. The
reasoning is the model's scratch work: worth a look when a reply puzzles, not worth a screen every turn.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from claw.tui.format import duration
from claw.tui.widgets.conversation.assistant_message import FLUSH_SECONDS


class ThinkingBlock(Widget, can_focus=True):
    """Reasoning text, gathered as it streams and shown on screen at most every `FLUSH_SECONDS`."""

    DEFAULT_CSS = """
    ThinkingBlock {
        width: 1fr;
        height: auto;
        color: $text-muted;
    }
    ThinkingBlock > .body {
        display: none;
        height: auto;
        padding: 0 0 0 2;
        text-style: italic;
    }
    ThinkingBlock.-expanded > .body {
        display: block;
    }
    """

    BINDINGS = [Binding("enter,space", "toggle_expanded", "Expand", show=False)]

    expanded: reactive[bool] = reactive(False)

    def __init__(self, text: str = "", *, finished: bool = False) -> None:
        super().__init__()
        self._text = text
        self.finished = finished
        self._timer: Timer | None = None
        self._started: float | None = None  # monotonic, at the first piece (a block from history has none)
        self.seconds: float | None = None
        """How long the reasoning streamed, once it is over (None for a block loaded from history)."""

    @property
    def text(self) -> str:
        """Every piece of reasoning received so far."""
        return self._text

    def compose(self) -> ComposeResult:
        yield Static(self.header(), classes="header")
        yield Static("", classes="body", markup=False)

    def write(self, delta: str) -> None:
        """Append a streamed piece (on screen within `FLUSH_SECONDS`)."""
        self._text += delta
        if self._started is None:
            self._started = time.monotonic()
        if self._timer is None and self.is_mounted:
            self._timer = self.set_timer(FLUSH_SECONDS, self._refresh)

    def finish(self) -> None:
        """The reasoning is over (the reply or a tool call began, or the run ended)."""
        self.finished = True
        if self._started is not None and self.seconds is None:
            self.seconds = time.monotonic() - self._started
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._refresh()

    def action_toggle_expanded(self) -> None:  # not `toggle`: that is DOMNode's, with an argument
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.action_toggle_expanded()

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        self._refresh()

    def _refresh(self) -> None:
        self._timer = None
        if not self.is_mounted:
            return
        self.query_one(".header", Static).update(self.header())
        if self.expanded:
            self.query_one(".body", Static).update(self._text)

    def header(self) -> Text:
        arrow = "▾" if self.expanded else "▸"
        label = "thinking…" if not self.finished else "thought"
        if self.finished and self.seconds is not None:
            label += f" for {duration(self.seconds)}"
        return Text.assemble((f"{arrow} {label}", "dim bold"), (f" · {len(self._text):,} chars", "dim"))
