"""What became of an inbound message (`DispatchResult`), and `NoRunStarted` for a caller that needed a run.

Its own module so that a capability can name the result of `Gateway.dispatch` (the channels keep a
command's reply, a merged message's run) without importing the `Gateway` itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from claw.errors import ClawError

CommandError = Literal["unknown-command", "usage", "failed"]
"""Why a command's reply is an error: no command has that name; the command was used wrongly (a
`UsageError`); or it could not do its job (any other `ClawError`). `claw agent` exits 2 for the first
two and 1 for the third."""


@dataclass(frozen=True, slots=True)
class DispatchResult:
    """What became of an inbound message: a run, a command reply, a dropped duplicate, a message merged
    into a queued run (collect mode), or one the full queue refused."""

    status: str  # accepted | command | duplicate | merged | dropped
    agent_id: str
    session_key: str
    run_id: str | None = None
    reply: str | None = None
    error: CommandError | None = None
    """Set when `reply` is a command's error rather than its answer (wire: `error`, beside `reply`)."""

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status,
            "agentId": self.agent_id,
            "sessionKey": self.session_key,
        }
        if self.run_id:
            out["runId"] = self.run_id
        if self.reply is not None:
            out["reply"] = self.reply
        if self.error is not None:
            out["error"] = self.error
        return out


class NoRunStarted(ClawError):
    """`Gateway.start_run`: the message did not become a run of its own (it was read as a slash command,
    was a duplicate, or was merged into or refused by a session's queue); `result` says which."""

    def __init__(self, result: DispatchResult) -> None:
        super().__init__(f"the gateway did not start a run ({result.status})")
        self.result = result

    @property
    def status(self) -> str:
        return self.result.status
