"""`ToolCard`: one tool call as a collapsed line — name, short arguments, spinner then ✓/✗, duration —
that expands (Enter or a click; Ctrl+O for all) to show the arguments and the result."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from claw.tui.format import duration, pretty_json, short_args

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
RESULT_SHOWN_CHARS = 6000  # more than a screen; the full result is in the transcript and /export


class ToolCard(Widget, can_focus=True):
    """A tool call; `status` is running | ok | error. A failed call opens by itself."""

    DEFAULT_CSS = """
    ToolCard {
        width: 1fr;
        height: auto;
    }
    ToolCard > .body {
        display: none;
        height: auto;
    }
    ToolCard.-expanded > .body {
        display: block;
    }
    """

    BINDINGS = [Binding("enter,space", "toggle", "Expand", show=False)]

    expanded: reactive[bool] = reactive(False)

    def __init__(self, call_id: str, name: str, args: Any, *, started: float | None = None) -> None:
        super().__init__()
        self.call_id = call_id
        self.tool_name = name
        self.args = args
        self.status = "running"
        self.result = ""
        self.elapsed: float | None = None
        self._started = started
        """When the call started (`time.monotonic()`), for a live card; None for one from history."""
        self._frame = 0

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="header")
        yield Static(self.body_text() if self.expanded else "", classes="body", markup=False)

    def on_mount(self) -> None:
        self.set_class(self.expanded, "-expanded")
        self.set_class(self.status == "error", "-error")
        self._timer = self.set_interval(0.1, self._spin, pause=self.status != "running")

    def _spin(self) -> None:
        self._frame += 1
        self.query_one(".header", Static).update(self._header())

    def finish(self, *, is_error: bool, result: str, elapsed: float | None = None) -> None:
        """Record the result; the spinner becomes ✓ or ✗ and a failure expands the card."""
        self.status = "error" if is_error else "ok"
        self.result = result
        if elapsed is None and self._started is not None:
            elapsed = time.monotonic() - self._started
        self.elapsed = elapsed
        if self.is_mounted:
            self._timer.pause()
            self.query_one(".header", Static).update(self._header())
            self.set_class(is_error, "-error")
        if is_error:
            self.expanded = True
        self._refresh_body()

    def action_toggle(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.action_toggle()

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        if self.is_mounted:
            self.query_one(".header", Static).update(self._header())
        self._refresh_body()

    def _refresh_body(self) -> None:
        if self.expanded and self.is_mounted:
            self.query_one(".body", Static).update(self.body_text())

    def body_text(self) -> str:
        """Arguments as JSON, then the result (cut to a screenful or so)."""
        parts = ["arguments:", pretty_json(self.args)]
        if self.status != "running":
            result = self.result
            if len(result) > RESULT_SHOWN_CHARS:
                result = result[:RESULT_SHOWN_CHARS] + f"\n… [{len(self.result) - RESULT_SHOWN_CHARS} more characters]"
            parts += ["", "error:" if self.status == "error" else "result:", result or "(empty)"]
        return "\n".join(parts)

    def _header(self) -> Text:
        mark = {"running": SPINNER[self._frame % len(SPINNER)], "ok": "✓", "error": "✗"}[self.status]
        style = {"running": "bold yellow", "ok": "bold green", "error": "bold red"}[self.status]
        line = Text.assemble((mark, style), " ", (self.tool_name, "bold"), " ")
        line.append(short_args(self.args), style="dim")
        if self.elapsed is not None:
            line.append(f"  {duration(self.elapsed)}", style="dim italic")
        line.append("  ▾" if self.expanded else "  ▸", style="dim")
        return line
