"""`EventsPane`: the live timeline of each run — lifecycle, tool and failover events with timings."""

from __future__ import annotations

import time
from datetime import datetime

from rich.text import Text
from textual.widgets import RichLog

from claw.tui.format import duration, short_args
from claw.vocab.run_event import Phase, RunEvent, Stream, ToolPhase

MAX_LINES = 5000
_COLOURS: dict[str, str] = {
    Phase.ERROR: "red",
    Phase.FAILOVER: "yellow",
    Phase.ABORTED: "yellow",
    Phase.END: "green",
    Phase.SUBAGENT: "cyan",
}


class EventsPane(RichLog):
    """One line per event that matters (text deltas are counted, not listed), stamped with the wall
    clock and the time since the run was accepted."""

    DEFAULT_CSS = """
    EventsPane {
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, max_lines=MAX_LINES, min_width=20, wrap=True, markup=False, auto_scroll=True)
        self._accepted: dict[str, float] = {}
        self._deltas: dict[str, int] = {}
        self._thoughts: dict[str, int] = {}
        self.lines_written: list[str] = []
        """The plain text of every line, for tests and copying."""
        self.entries: list[tuple[float, str, str]] = []
        """(seconds since accepted, label, detail) of every line."""

    def record(self, event: RunEvent) -> None:
        now = time.monotonic()
        run = event.run_id
        if event.stream == Stream.ASSISTANT:
            if self._deltas.get(run, 0) == 0:
                self._line(run, now, "assistant", "first token", "cyan")
            self._deltas[run] = self._deltas.get(run, 0) + 1
            return
        if event.stream == Stream.THINKING:  # reasoning: one line when it starts, then counted
            if self._thoughts.get(run, 0) == 0:
                self._line(run, now, "thinking", "reasoning streams (collapsed in the conversation)", "dim")
            self._thoughts[run] = self._thoughts.get(run, 0) + 1
            return
        data = event.data
        phase = str(data.get("phase", ""))
        if event.stream == Stream.TOOL:
            name = str(data.get("name"))
            detail = f"{name} {short_args(data.get('args'), 48)}" if phase == ToolPhase.START else name
            if phase == ToolPhase.RESULT:
                detail = f"{'✗' if data.get('isError') else '✓'} {detail}"
            self._line(run, now, f"tool {phase}", detail, "magenta")
            return
        match phase:
            case Phase.ACCEPTED:
                self._accepted[run] = now
                self._deltas[run] = 0
                detail = f"run {run[:8]}"
            case Phase.START:
                detail = f"model {data.get('model')}"
            case Phase.FAILOVER:
                detail = f"{data.get('from')} → {data.get('to')}: {data.get('reason')}"
            case Phase.END:
                usage = data.get("usage") or {}
                tokens = f"tokens in {usage.get('input', 0)} / out {usage.get('output', 0)}"
                thoughts = self._thoughts.get(run, 0)
                thought = f", {thoughts} thinking" if thoughts else ""
                detail = f"{self._deltas.get(run, 0)} deltas{thought}, {tokens}"
            case Phase.ERROR:
                detail = str(data.get("message"))
            case Phase.SUBAGENT:
                detail = f"{data.get('state')} run {str(data.get('childRunId', ''))[:8]}"
            case _:
                detail = ""
        self._line(run, now, phase, detail, _COLOURS.get(phase, "blue"))
        if event.is_terminal:
            self._accepted.pop(run, None)
            self._deltas.pop(run, None)
            self._thoughts.pop(run, None)

    def _line(self, run: str, now: float, label: str, detail: str, colour: str) -> None:
        since = now - self._accepted.get(run, now)
        stamp = datetime.now().strftime("%H:%M:%S")
        line = Text.assemble((stamp, "dim"), " ", ("+" + duration(since), "dim"), " ", (f"{label:<11}", colour), " ")
        line.append(detail)
        self.lines_written.append(line.plain)
        self.entries.append((since, label, detail))
        del self.lines_written[:-MAX_LINES], self.entries[:-MAX_LINES]
        self.write(line)
