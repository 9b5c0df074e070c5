"""`SeenEvents`: which run events a session subscriber has already had, so that none reaches it twice.

A session's events can reach a subscriber along two ways at once: replayed from the runs under way when it
subscribed and live from the bus (in-process), or forwarded for a run the connection follows and for the
session it subscribed to (over WebSocket, where the server sends each event once but a run's terminal event
may cross). Each run's events carry a growing `seq`, so an event is new when its seq is past the last one
seen for its run; a run that ended is remembered for a while, so a late duplicate of its end is dropped too.
"""

from __future__ import annotations

from collections import OrderedDict

from claw.vocab.run_event import RunEvent

KEEP_ENDED_RUNS = 512


class SeenEvents:
    """`is_new(event)` is True once per (run, seq), and only in seq order."""

    def __init__(self) -> None:
        self._last: dict[str, int] = {}
        self._ended: OrderedDict[str, None] = OrderedDict()

    def is_new(self, event: RunEvent) -> bool:
        run_id = event.run_id
        if run_id in self._ended or event.seq <= self._last.get(run_id, 0):
            return False
        if event.is_terminal:
            self._last.pop(run_id, None)
            self._ended[run_id] = None
            while len(self._ended) > KEEP_ENDED_RUNS:
                self._ended.popitem(last=False)
        else:
            self._last[run_id] = event.seq
        return True
