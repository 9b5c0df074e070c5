"""`TurnGuard`: a run's turn on its transcript, from the first entry to the last, ended whatever happens.

Around every run's transcript writes (`async with TurnGuard(...)`):

1. before: a turn that a dead process left open in the transcript is closed (`SessionStore.
   close_interrupted_turn`, in a worker thread; a stat when there is nothing to close);
2. the shared turn lock is held (`claw.store.turn_lock`), so no other process takes this live turn,
   however long it runs, for a dead one;
3. when the run fails or is stopped before its turn ended (no reply was written), the turn is closed
   with an `interrupted` entry saying why, "aborted" or "error", so that nothing but a dead process
   ever leaves a turn open and the next prompt never holds two user messages in a row;
4. the lock is let go.
"""

from __future__ import annotations

import asyncio
import logging
import time
from types import TracebackType

from claw.agent.env import AgentEnv
from claw.errors import ClawError
from claw.store.transcript import Transcript
from claw.store.turn_lock import TurnLock
from claw.store.turn_state import interrupted_entry

log = logging.getLogger(__name__)

LOCK_WAIT_SECONDS = 5.0
"""How long a turn waits for a repair holding the turn lock (which takes milliseconds) before it goes on."""
_LOCK_POLL_SECONDS = 0.002  # flock has no awaitable form; a worker thread blocked in it could not be cancelled


class TurnGuard:
    """The turn of run `run_id` on `transcript`, the transcript of `session_key` in `env`'s store."""

    def __init__(self, env: AgentEnv, session_key: str, transcript: Transcript, run_id: str) -> None:
        self._env = env
        self._session_key = session_key
        self._transcript = transcript
        self._run_id = run_id
        self._lock = TurnLock(transcript.path)

    async def __aenter__(self) -> TurnGuard:
        transcript = self._transcript
        if transcript.first_use_pending or transcript.open_turn() is not None:
            try:
                await asyncio.to_thread(self._env.sessions.close_interrupted_turn, self._session_key)
            except Exception:  # the user's turn goes ahead; its prompt says the old turn got no reply
                log.exception("could not close an interrupted turn of session %s", self._session_key)
        await self._hold_lock()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if exc is not None:
                self._close_unfinished(exc)
        finally:
            self._lock.release()

    async def _hold_lock(self) -> None:
        try:
            if self._lock.acquire_shared(wait=False):  # the common case: nobody is repairing
                return
            deadline = time.monotonic() + LOCK_WAIT_SECONDS
            while not self._lock.acquire_shared(wait=False):
                if time.monotonic() > deadline:
                    log.warning("%s: the turn lock stayed taken; running the turn without it", self._lock.path)
                    return
                await asyncio.sleep(_LOCK_POLL_SECONDS)
        except OSError as exc:  # the lock file cannot be opened: the turn runs, unguarded
            log.warning("%s: cannot take the turn lock (%s); running the turn without it", self._lock.path, exc)

    def _close_unfinished(self, exc: BaseException) -> None:
        """Write the entry ending this run's turn if the run stopped inside it (no reply written)."""
        try:
            turn = self._transcript.open_turn()
            if turn is None or turn.run_id != self._run_id:
                return  # ended (a reply, or the text cut short), or it never wrote an entry
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
                reason, detail = "aborted", None
            elif isinstance(exc, ClawError):
                reason, detail = "error", exc.message
            else:
                reason, detail = "error", f"{type(exc).__name__}: {exc}"
            self._transcript.append(interrupted_entry(turn, reason, detail))
        except Exception:  # the run's own error is the one to report
            log.exception("could not close the turn of run %s in %s", self._run_id, self._transcript.path)
