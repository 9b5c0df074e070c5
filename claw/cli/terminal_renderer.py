"""`TerminalRenderer`: one run's events as a person at a terminal reads them.

Its own module because two drivers show runs this way: `run_render` (the turn itself) and
`subagent_wait` (the subagents' report turns that follow it).
"""

from __future__ import annotations

import sys
import time
from typing import Any

from claw.vocab.run_event import TRUNCATED_LENGTH, TRUNCATED_NOTE, Phase, RunEvent, State, Stream, ToolPhase

THINKING_MARK = "(thinking…)"

_approval_wait = [0.0]
"""Seconds spent waiting for the user's exec approvals in this process, all told (`ask_on_terminal` adds):
a call's time is shown without them, the wait apart, as the console does."""


def approval_waited(seconds: float) -> None:
    _approval_wait[0] += seconds


class TerminalRenderer:
    """Reply text to stdout as it streams; tool calls, failovers and errors to stderr. The model's
    reasoning is never printed: a model call that reasons gets one `(thinking…)` line on stderr (dim on a
    terminal), so stdout holds the reply alone (`claw sessions show` has the reasoning)."""

    def __init__(self) -> None:
        self._mid_line = False
        self._tool_started: dict[str, tuple[float, float]] = {}  # call → (its start, the approval wait then)
        self._thinking_said = False  # for the current model call

    def handle(self, event: RunEvent) -> None:
        data = event.data
        if event.stream == Stream.THINKING:
            if data.get("delta") and not self._thinking_said:
                self._thinking_said = True
                dim = sys.stderr.isatty()
                self._note(f"\x1b[2m{THINKING_MARK}\x1b[0m" if dim else THINKING_MARK)
            return
        if event.stream in (Stream.ASSISTANT, Stream.TOOL):
            self._thinking_said = False  # the next call's reasoning gets its own line
        if event.stream == Stream.ASSISTANT:
            text = data.get("delta", "")
            sys.stdout.write(text)
            sys.stdout.flush()
            if text:
                self._mid_line = not text.endswith("\n")
            return
        if event.stream == Stream.TOOL:
            self._tool(data)
            return
        match event.phase:
            case Phase.FAILOVER:
                self._note(f"! {data['from']} failed ({data['reason']}); trying {data['to']}")
            case Phase.BUDGET:
                self._note(f"! {data['message']}")
            case Phase.WARNING:  # e.g. the server cut the prompt: the run goes on, said once per session
                self._note(f"! {data['message']}")
            case Phase.COMPACTION if data.get("state") == State.END:
                self._note(f"(context compacted: ~{data['tokensBefore']:,} → ~{data['tokensAfter']:,} tokens)")
            case Phase.ERROR:
                self._note(f"claw: error: {data.get('message')}")
            case Phase.ABORTED:
                self._note("(aborted)")
            case Phase.END if data.get("truncated") == TRUNCATED_LENGTH:
                self._note(TRUNCATED_NOTE)
            case Phase.END:
                self._newline()

    def _tool(self, data: dict[str, Any]) -> None:
        call_id = data.get("toolCallId", "")
        if data.get("phase") == ToolPhase.START:
            self._tool_started[call_id] = (time.perf_counter(), _approval_wait[0])
            self._note(f"→ {data['name']} {_summary(data.get('args'))}")
            return
        started, wait_before = self._tool_started.pop(call_id, (time.perf_counter(), _approval_wait[0]))
        waited = _approval_wait[0] - wait_before
        elapsed = max(0.0, time.perf_counter() - started - waited) * 1000
        mark = "✗" if data.get("isError") else "✓"
        first = (data.get("result") or "").strip().splitlines()[:1]
        detail = f": {_clip(first[0])}" if data.get("isError") and first else ""
        asked = f", {waited:.1f} s waiting for approval" if waited >= 0.05 else ""
        self._note(f"{mark} {data['name']} ({elapsed:.0f} ms{asked}){detail}")

    def _newline(self) -> None:
        if self._mid_line:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self._mid_line = False

    def _note(self, line: str) -> None:
        self._newline()
        print(line, file=sys.stderr, flush=True)


def _summary(args: Any, limit: int = 100) -> str:
    if isinstance(args, dict):
        text = " ".join(f"{k}={v!r}" if not isinstance(v, str) or len(v) < 60 else f"{k}=…" for k, v in args.items())
    else:
        text = str(args)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip(line: str, limit: int = 2_000) -> str:
    """An error's first line whole (a denial says what to do at its end); only a runaway line is cut."""
    return line if len(line) <= limit else f"{line[:limit]}… ({len(line) - limit:,} more characters)"
