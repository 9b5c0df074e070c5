"""Queue modes: what a message does when its session already has a run going.

- followup: it runs as its own turn after the current one (the session lane's FIFO order).
- collect: messages that arrive while busy merge into one queued turn, started after a quiet window.
- steer: it is injected into the running turn at the next model call; if the turn ends first,
  it simply runs next, as a followup.
- interrupt: the running (and queued) turns are aborted and the new message runs.

At most `cap` turns wait per session; past that the oldest is dropped (`drop = old`), dropped with
a one-line summary handed to the next turn (`summarize`), or the new message is refused (`new`).
Every drop is a lifecycle event on the dropped run; nothing disappears silently.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, replace
from typing import Any

from claw.config import Config
from claw.errors import UsageError
from claw.gateway.runs import Run, RunRegistry

MODES = ("steer", "followup", "collect", "interrupt")
DROPS = ("summarize", "old", "new")
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m)?$")


@dataclass(frozen=True, slots=True)
class QueuePolicy:
    mode: str = "followup"
    debounce_s: float = 1.0
    cap: int = 20
    drop: str = "summarize"

    def to_wire(self) -> dict[str, Any]:
        return {"mode": self.mode, "debounceMs": round(self.debounce_s * 1000), "cap": self.cap, "drop": self.drop}

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> QueuePolicy:
        return cls(raw["mode"], raw["debounceMs"] / 1000, int(raw["cap"]), raw["drop"])

    def describe(self) -> str:
        return f"{self.mode} (debounce {self.debounce_s:g} s, cap {self.cap}, drop {self.drop})"


@dataclass(frozen=True, slots=True)
class Admission:
    """`run`: schedule the new run; `merged`: it joined `run_id`; `dropped`: refused (queue full)."""

    kind: str
    run_id: str | None = None
    reason: str | None = None


def configured_policy(config: Config, channel: str) -> QueuePolicy:
    q = config.file.messages.queue
    return QueuePolicy(q.by_channel.get(channel, q.mode), q.debounce_ms / 1000, q.cap, q.drop)


def parse_queue_args(args: str, base: QueuePolicy) -> QueuePolicy:
    """`/queue collect debounce:2s cap:25 drop:old` → a policy; raises UsageError naming the bad word."""
    policy = base
    for word in args.split():
        key, sep, value = word.partition(":")
        key = key.lower()
        if not sep and key in MODES:
            policy = replace(policy, mode=key)
        elif key == "debounce" and (m := _DURATION.match(value)):
            factor = {"ms": 0.001, "s": 1.0, "m": 60.0, None: 0.001}[m.group(2)]
            policy = replace(policy, debounce_s=float(m.group(1)) * factor)
        elif key == "cap" and value.isdigit() and int(value) > 0:
            policy = replace(policy, cap=int(value))
        elif key == "drop" and value in DROPS:
            policy = replace(policy, drop=value)
        else:
            modes, drops = "|".join(MODES), "|".join(DROPS)
            raise UsageError(f"/queue: cannot use {word!r}; try /queue {modes} [debounce:1s] [cap:20] [drop:{drops}]")
    return policy


class QueueController:
    """Applies a session's queue policy to each new run while the session is busy."""

    def __init__(self, runs: RunRegistry) -> None:
        self._runs = runs
        self._dropped: dict[str, list[str]] = {}

    def admit(self, run: Run, policy: QueuePolicy, abort: Any) -> Admission:
        busy = [r for r in self._runs.active(run.session_key) if r.lane == run.lane and r is not run]
        if not busy:
            run.collect_open = policy.mode == "collect"
            return Admission("run")
        queued = [r for r in busy if r.started_at is None and not r.abort_requested]
        if policy.mode == "interrupt":
            for other in busy:
                other.drop_reason = "interrupted by a newer message"
                abort(other.id)
            return Admission("run")
        if policy.mode == "collect":
            target = next((r for r in reversed(queued) if r.collect_open), None)
            if target is not None:
                target.merge(run.ctx)
                return Admission("merged", target.id)
            run.collect_open = True
        if len(queued) >= policy.cap:
            if policy.drop == "new":
                return Admission("dropped", reason=f"queue full ({policy.cap} waiting); message dropped")
            for oldest in queued[: len(queued) - policy.cap + 1]:
                oldest.drop_reason = f"dropped: queue full ({policy.cap} waiting)"
                if policy.drop == "summarize":
                    self._dropped.setdefault(run.session_key, []).append(_summary(oldest.ctx.body))
                abort(oldest.id)
        if policy.mode == "steer":
            running = [r for r in busy if r.started_at is not None and not r.finishing]
            if running:
                running[0].steer_candidates.append(run)
        return Admission("run")

    def take_dropped(self, session_key: str) -> list[str]:
        return self._dropped.pop(session_key, [])

    async def settle(self, run: Run, policy: QueuePolicy) -> None:
        """For a collect run: wait until no message has joined it for the quiet window, then close it."""
        while run.collect_open:
            left = run.last_merge_at + policy.debounce_s - time.monotonic()
            if left <= 0:
                run.collect_open = False
                return
            await asyncio.sleep(left)


def _summary(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
