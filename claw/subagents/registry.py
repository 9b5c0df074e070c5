"""`SubagentRegistry`: the children of one gateway, running and recent, and waiting for a turn's tree.

A turn's tree is every child it spawned, every announcement turn those children caused, and
everything those turns and children spawned in turn. `wait` is what a one-shot `claw agent -m`
uses (through `subagents.wait`) to stay until all of it has settled.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from claw.subagents.record import SubagentRecord

KEEP_SETTLED = 500


class SubagentRegistry:
    """Records by child run id, in spawn order; every change wakes the waiters."""

    def __init__(self) -> None:
        self._records: OrderedDict[str, SubagentRecord] = OrderedDict()
        self._changed = asyncio.Event()

    def add(self, record: SubagentRecord) -> None:
        self._records[record.run_id] = record
        self._trim()
        self._notify()

    def update(self, run_id: str, **changes: Any) -> SubagentRecord:
        record = replace(self._records[run_id], **changes)
        self._records[run_id] = record
        self._notify()
        return record

    def get(self, run_id: str) -> SubagentRecord | None:
        return self._records.get(run_id)

    def all(self) -> list[SubagentRecord]:
        return list(self._records.values())

    def active_children(self, parent_session_key: str) -> list[SubagentRecord]:
        return [r for r in self._records.values() if r.parent_session_key == parent_session_key and not r.finished]

    def tree(self, run_id: str) -> list[SubagentRecord]:
        """Every record descending from run `run_id` (through children and announcement turns), in spawn order."""
        roots = {run_id}
        found: dict[str, SubagentRecord] = {}
        grew = True
        while grew:
            grew = False
            for record in self._records.values():
                if record.run_id not in found and record.parent_run_id in roots:
                    found[record.run_id] = record
                    roots.add(record.run_id)
                    if record.announce_run_id:
                        roots.add(record.announce_run_id)
                    grew = True
                elif record.run_id in found and record.announce_run_id and record.announce_run_id not in roots:
                    roots.add(record.announce_run_id)
                    grew = True
        return [r for r in self._records.values() if r.run_id in found]

    async def wait(self, run_id: str, known: Iterable[str], timeout: float) -> dict[str, Any]:
        """Return once run `run_id`'s tree has settled, or an announcement turn not in `known` has started,
        or `timeout` seconds passed: `status` is `settled`, `pending` or `timeout` accordingly."""
        seen = set(known)
        deadline = time.monotonic() + timeout
        while True:
            changed = self._changed
            tree = self.tree(run_id)
            announcements = [r.announce_run_id for r in tree if r.announce_run_id]
            settled = all(r.settled for r in tree)
            fresh = any(a not in seen for a in announcements)
            if settled or fresh or time.monotonic() >= deadline:
                status = "settled" if settled else "pending" if fresh else "timeout"
                return {
                    "status": status,
                    "announceRunIds": announcements,
                    "children": [r.to_wire() for r in tree],
                }
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    await changed.wait()
            except TimeoutError:
                pass

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _trim(self) -> None:
        settled = [rid for rid, r in self._records.items() if r.settled]
        for rid in settled[: max(0, len(settled) - KEEP_SETTLED)]:
            del self._records[rid]
