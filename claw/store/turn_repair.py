"""Closing a turn that a dead process left open, once, whoever gets there first.

A process killed mid-turn (`kill -9`, a crash, the machine going down) leaves its transcript ending
inside the turn: the user's message, perhaps tool calls and results, perhaps the partial entries of a
reply it was streaming. The next process to use the transcript appends one `interrupted` assistant
entry holding the streamed text (`claw.store.turn_state.interrupted_entry`), so every reader sees the
turn end, and the next prompt gives the model that reply rather than two user messages in a row.

Safe to call from any process at any time: it acts only under the exclusive turn lock, which no one
holds while a turn is running anywhere (`claw.store.turn_lock`), and it looks at the transcript again
under that lock, so two repairers at once append one entry, and a repeated call appends none.
"""

from __future__ import annotations

import logging

from claw.store.transcript import Entry, Transcript
from claw.store.turn_lock import TurnLock
from claw.store.turn_state import interrupted_entry

log = logging.getLogger(__name__)


def close_interrupted_turn(transcript: Transcript) -> Entry | None:
    """Append the entry closing the transcript's last turn if it is open and nobody is running it;
    returns the entry, or None when there was nothing to close (or a turn is live)."""
    if transcript.open_turn() is None:  # the common case: one stat
        return None
    with TurnLock(transcript.path) as lock:
        if not lock.try_exclusive():
            return None  # a turn is running (in this process or another), or another repair is
        found = transcript.open_turn()  # again, now that nobody can be writing it
        if found is None:
            return None
        entry = transcript.append(interrupted_entry(found, "exited"))
    log.warning(
        "%s: closed run %s, which stopped mid-turn (its process ended), keeping %d streamed character(s)",
        transcript.path,
        found.run_id,
        len(found.partial),
    )
    return entry
