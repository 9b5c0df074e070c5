"""`ToolCard`: one tool call as a collapsed line — name, short arguments, spinner then ✓/✗, duration —
that expands (Enter or a click; Ctrl+O for all) to show the arguments and the result.

A call that waited for the user's approval (exec) says so while it waits, and afterwards shows the
wait apart from the run time: `✓ exec make test  3.1 s · waited 42 s for approval`. The console
learns of the question from the approval it shows, not from the run's events, so the screen ties the
two together (`ChatScreen.approval_asked`) by the command the question names.
"""

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
MCP_SEPARATOR = "__"
"""An MCP tool is offered as `<server>__<tool>` (server names may not contain `__`; built-in tools do not)."""


def tool_label(name: str) -> str:
    """How a tool is named on screen: `files · read_file` for the MCP tool `files__read_file`, else its name."""
    server, sep, tool = name.partition(MCP_SEPARATOR)
    return f"{server} · {tool}" if sep and server and tool else name


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

    BINDINGS = [Binding("enter,space", "toggle_expanded", "Expand", show=False)]

    expanded: reactive[bool] = reactive(False)

    def __init__(self, call_id: str, name: str, args: Any, *, started: float | None = None) -> None:
        super().__init__()
        self.call_id = call_id
        self.tool_name = name
        self.args = args
        self.status = "running"
        self.result = ""
        self.elapsed: float | None = None
        """Seconds from the call to its result, approval wait included (None: not known)."""
        self.approval_wait = 0.0
        """Seconds of `elapsed` spent waiting for the user to approve the call, not running."""
        self.approval_id: str | None = None
        """The approval question this call waited on, once tied to it."""
        self._asked_at: float | None = None
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
        self._refresh_header()

    def finish(self, *, is_error: bool, result: str, elapsed: float | None = None) -> None:
        """Record the result; the spinner becomes ✓ or ✗ and a failure expands the card."""
        self.status = "error" if is_error else "ok"
        self.result = result
        if elapsed is None and self._started is not None:
            elapsed = time.monotonic() - self._started
        self.elapsed = elapsed
        if self.is_mounted:
            self._timer.pause()
            self._refresh_header()
            self.set_class(is_error, "-error")
        if is_error:
            self.expanded = True
        self._refresh_body()

    def asked_about(self, request_id: str, command: str) -> bool:
        """Whether the approval question `request_id`, about `command`, is this call's: the one it is tied
        to, or for a call not yet tied to one, a running call with that command line."""
        if self.approval_id is not None:
            return self.approval_id == request_id
        if self.status != "running":
            return False
        if MCP_SEPARATOR in self.tool_name:  # an MCP tool's question names the call: `server__tool(k=v, …)`
            return command.startswith(f"{self.tool_name}(")
        args = self.args if isinstance(self.args, dict) else {}
        return str(args.get("command", "")).strip() == command.strip()

    def approval_asked(self, request_id: str, since: float) -> None:
        """The user is being asked (since `since`, monotonic) whether this call may run."""
        self.approval_id = request_id
        self._asked_at = since
        self._refresh_header()

    def approval_answered(self, request_id: str, since: float, at: float) -> None:
        """The user answered at `at`; the wait is counted apart from the run time."""
        self.approval_id = request_id
        self._asked_at = None
        self.approval_wait += max(0.0, at - since)
        self._refresh_header()

    def action_toggle_expanded(self) -> None:  # not `toggle`: that is DOMNode's, with an argument
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.action_toggle_expanded()

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        self._refresh_header()
        self._refresh_body()

    def _refresh_header(self) -> None:
        if self.is_mounted:
            self.query_one(".header", Static).update(self._header())

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
        line = Text.assemble((mark, style), " ", (tool_label(self.tool_name), "bold"), " ")
        line.append(short_args(self.args), style="dim")
        if self._asked_at is not None and self.status == "running":
            line.append("  waiting for approval", style="bold yellow")
        if self.elapsed is not None:
            ran = max(0.0, self.elapsed - self.approval_wait)
            line.append(f"  {duration(ran)}", style="dim italic")
        if self.approval_wait and self._asked_at is None:
            line.append(f" · waited {duration(self.approval_wait)} for approval", style="dim italic")
        line.append("  ▾" if self.expanded else "  ▸", style="dim")
        return line
