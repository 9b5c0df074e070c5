"""`SubagentRow`: one child in a subagents tree — name, agent, spinner then status, duration — with `x` to stop it."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from claw.tui.format import duration
from claw.tui.subagent_info import ChildInfo
from claw.tui.widgets.conversation.tool_card import SPINNER

_STATUS = {
    "queued": ("○", "queued", "dim"),
    "ok": ("✓", "done", "bold green"),
    "error": ("✗", "failed", "bold red"),
    "timeout": ("✗", "timed out", "bold red"),
    "aborted": ("■", "stopped", "bold yellow"),
}
ERROR_CHARS = 60


class SubagentRow(Static, can_focus=True):
    """A child; `info` is set by its tree, `level` (0 for the turn's own children) indents it."""

    DEFAULT_CSS = """
    SubagentRow {
        width: 1fr;
        height: auto;
    }
    """

    BINDINGS = [Binding("x", "stop", "Stop subagent")]

    info: reactive[ChildInfo | None] = reactive(None)

    class StopRequested(Message):
        """The user asked to stop this child (the screen calls `subagents.abort`)."""

        def __init__(self, run_id: str) -> None:
            super().__init__()
            self.run_id = run_id

    def __init__(self, info: ChildInfo, *, level: int = 0) -> None:
        super().__init__(markup=False)
        self.level = level
        self._frame = 0
        self.set_reactive(SubagentRow.info, info)

    @property
    def run_id(self) -> str:
        assert self.info is not None
        return self.info.run_id

    @property
    def status_word(self) -> str:
        """What the row says of the child's state: `running`, `done`, `stopped`, …"""
        info = self.info
        if info is None:
            return ""
        return "running" if info.status == "running" else _STATUS.get(info.status, ("", info.status, ""))[1]

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.1, self._spin, pause=not self._child_running)
        self.update(self.line())

    @property
    def _child_running(self) -> bool:
        return self.info is not None and self.info.status == "running"

    def watch_info(self) -> None:
        if not self.is_mounted:
            return
        if self._child_running:
            self._timer.resume()
        else:
            self._timer.pause()
        self.update(self.line())

    def _spin(self) -> None:
        self._frame += 1
        self.update(self.line())

    def line(self) -> Text:
        """The row as one line of text."""
        info = self.info
        assert info is not None
        if info.status == "running":
            mark, word, style = SPINNER[self._frame % len(SPINNER)], "running", "bold yellow"
        else:
            mark, word, style = _STATUS.get(info.status, ("?", info.status, "dim"))
        line = Text("  " * self.level + ("└ " if self.level else ""), style="dim")
        line.append_text(Text.assemble((mark, style), " ", (info.name, "bold")))
        if info.agent_id:
            line.append(f"  {info.agent_id}", style="cyan")
        line.append(f"  {word}", style=style)
        elapsed = info.elapsed()
        if elapsed is not None:
            line.append(f"  {duration(elapsed)}", style="dim italic")
        if info.error and info.status != "aborted":
            error = " ".join(info.error.split())
            line.append(f"  {error[:ERROR_CHARS]}", style="dim")
        return line

    def action_stop(self) -> None:
        if self.info is not None and not self.info.finished:
            self.post_message(self.StopRequested(self.info.run_id))
        else:
            self.notify("That subagent has already ended.", timeout=2)
