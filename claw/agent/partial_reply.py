"""`PartialReply`: a streaming reply's text, saved to the transcript as it arrives, a few times a second at most.

Without it the text of a reply lives only in memory until the reply is complete, and a process killed
mid-stream loses it (and leaves no sign that a reply was under way). Each save is one `partial` entry
holding the characters received since the last (`claw.store.turn_state`); the reply's own entry,
written when the stream ends, supersedes them all.

When: once `max_chars` characters are waiting, or `interval` seconds after the oldest of them
arrived, whichever comes first, so a long reply is saved every few KB and a slow one about once a
second; a reply that ends within the interval (most short ones) writes nothing extra. Each save is
one `os.write` of one line on the transcript's O_APPEND descriptor, like every transcript line, and is
not fsynced: a killed process loses nothing the kernel already has, and only a crash of the machine
itself could lose the last second, while an fsync per save would cost the turn milliseconds.
"""

from __future__ import annotations

import asyncio
import logging

from claw.store.transcript import Transcript
from claw.transcript_entries import partial_entry

log = logging.getLogger(__name__)

SAVE_INTERVAL_SECONDS = 1.0
SAVE_CHARS = 4096


class PartialReply:
    """The partial saves of one model response's text (one per model call, closed when the call ends)."""

    def __init__(
        self,
        transcript: Transcript,
        run_id: str,
        *,
        interval: float = SAVE_INTERVAL_SECONDS,
        max_chars: int = SAVE_CHARS,
    ) -> None:
        self._transcript = transcript
        self._run_id = run_id
        self._interval = interval
        self._max_chars = max_chars
        self._waiting: list[str] = []
        self._waiting_chars = 0
        self._saved_chars = 0
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    @property
    def saved_chars(self) -> int:
        """How much of the reply is in the transcript so far."""
        return self._saved_chars

    def add(self, text: str) -> None:
        """Take the next piece of the reply (on the event loop); saves when one is due."""
        if self._closed or not text:
            return
        self._waiting.append(text)
        self._waiting_chars += len(text)
        if self._waiting_chars >= self._max_chars:
            self.save()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._interval, self.save)

    def save(self) -> None:
        """Write what is waiting as one partial entry now."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._closed or not self._waiting:
            return
        text = "".join(self._waiting)
        self._waiting, self._waiting_chars = [], 0
        try:
            self._transcript.append(partial_entry(self._run_id, self._saved_chars, text))
        except (OSError, TypeError, ValueError):
            # A safety net must not end the turn it guards: the reply still streams and is written whole.
            log.exception("could not save a partial reply of run %s; not trying again for this reply", self._run_id)
            self._closed = True
            return
        self._saved_chars += len(text)

    def close(self) -> None:
        """The response ended (complete or not): no more saves; the entry written next supersedes them."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting, self._waiting_chars = [], 0
