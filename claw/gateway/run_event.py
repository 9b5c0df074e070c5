"""`RunEvent`: what every client receives while a run goes, and what `--json` prints."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Stream = Literal["lifecycle", "assistant", "tool"]

TERMINAL_PHASES = frozenset({"end", "error", "aborted"})


@dataclass(frozen=True, slots=True)
class RunEvent:
    run_id: str
    seq: int
    session_key: str
    stream: Stream
    data: dict[str, Any]

    @property
    def phase(self) -> str | None:
        return self.data.get("phase") if self.stream in ("lifecycle", "tool") else None

    @property
    def is_terminal(self) -> bool:
        return self.stream == "lifecycle" and self.data.get("phase") in TERMINAL_PHASES

    def to_wire(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "seq": self.seq,
            "sessionKey": self.session_key,
            "stream": self.stream,
            "data": self.data,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_wire(), ensure_ascii=False)

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> RunEvent:
        return cls(raw["runId"], int(raw["seq"]), raw["sessionKey"], raw["stream"], dict(raw["data"]))
