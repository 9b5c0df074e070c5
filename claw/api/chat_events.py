"""`ChatEvents`: a run's RunEvents as OpenClaw's `chat` events — what OpenClaw's TUI and Control UI draw a
conversation from (`chat.send` starts the run; these follow on the event bus).

    assistant delta "Hel"   → {"state": "delta", "deltaText": "Hel", "message": {…"Hel"}, …}
    lifecycle end           → {"state": "final", "message": {…the reply…}, "usage", "stopReason"}
    lifecycle error         → {"state": "error", "errorMessage", "errorKind"}
    lifecycle aborted       → {"state": "aborted", "message"?: {…what had streamed…}}

Every payload has `runId`, `sessionKey` and its own `seq` (1, 2, … per run, as OpenClaw numbers a run's
chat events). A delta's `deltaText` is what this delta adds, its `message` the whole reply so far (OpenClaw's
protocol 4: the message is the cumulative snapshot). Tool, thinking and the other lifecycle events have no
`chat` form; OpenClaw's clients read those from the `agent` events, which carry every RunEvent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from claw.api.session_rows import assistant_message, now_ms
from claw.vocab.run_event import Phase, RunEvent, Stream

ERROR_KINDS = {"rate_limit": "rate_limit", "timeout": "timeout", "context_overflow": "context_length"}
"""claw's error codes that have an OpenClaw `errorKind`; any other error is `unknown`."""


@dataclass(slots=True)
class _RunText:
    parts: list[str] = field(default_factory=list)
    seq: int = 0

    def text(self) -> str:
        return "".join(self.parts)


class ChatEvents:
    """Keeps each run's reply so far; `payload(event)` is the `chat` event an event becomes, or None."""

    def __init__(self) -> None:
        self._runs: dict[str, _RunText] = {}

    def payload(self, event: RunEvent) -> dict[str, Any] | None:
        run = self._runs.get(event.run_id)
        if event.stream == Stream.ASSISTANT and isinstance(delta := event.data.get("delta"), str) and delta:
            if run is None:
                run = self._runs[event.run_id] = _RunText()
            run.parts.append(delta)
            return self._frame(event, run, state="delta", deltaText=delta, message=assistant_message(run.text()))
        if not event.is_terminal:
            return None
        run = self._runs.pop(event.run_id, None) or _RunText()
        phase = event.data.get("phase")
        if phase == Phase.END:
            text = event.data.get("text")
            reply = text if isinstance(text, str) else run.text()
            usage = event.data.get("usage") or {}
            return self._frame(
                event, run, state="final", message=assistant_message(reply, now_ms()), usage=usage, stopReason="stop"
            )
        if phase == Phase.ABORTED:
            streamed = run.text()
            extra = {"message": assistant_message(streamed, now_ms())} if streamed else {}
            return self._frame(event, run, state="aborted", stopReason="aborted", **extra)
        code = str(event.data.get("code") or "")
        message = str(event.data.get("message") or "the run failed")
        return self._frame(event, run, state="error", errorMessage=message, errorKind=ERROR_KINDS.get(code, "unknown"))

    def forget(self, run_id: str) -> None:
        self._runs.pop(run_id, None)

    @staticmethod
    def _frame(event: RunEvent, run: _RunText, **fields: Any) -> dict[str, Any]:
        run.seq += 1
        return {"runId": event.run_id, "sessionKey": event.session_key, "seq": run.seq, **fields}
