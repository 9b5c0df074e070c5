"""`UsageLedger`: every model call, one row each in gateway.db, written off the reply's path.

The router tells `record` of each finished call on the event loop; `record` only turns it into a
row tuple and puts it on a queue. One writer thread takes rows off the queue and inserts them, all
that are waiting in one `BEGIN IMMEDIATE … COMMIT`, so a reply never waits on SQLite's fsync. A
transaction is all or nothing, so `kill -9` at any moment leaves every row whole or absent, never
half written; what a killed process had queued but not committed is lost (at most the calls of the
last few milliseconds). Readers in the same process call `flush` first to see their own calls.

The database opens on the writer thread's first row (or a reader's first query): a gateway that
makes no model call never touches the file for usage.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TypeVar

from claw.providers.metering import ModelCall
from claw.store.db import Database, DatabaseError
from claw.usage.prices import PriceBook, Tokens
from claw.usage.schema import MIGRATIONS

log = logging.getLogger(__name__)

T = TypeVar("T")

COLUMNS = (
    "ts", "day", "agent_id", "session_key", "run_id", "source", "job_id", "channel", "provider", "model",
    "local", "input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens",
    "estimated", "status", "error", "first_token_ms", "total_ms", "cost_at_call",
)  # fmt: skip
_INSERT = f"INSERT INTO usage_calls ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
_ROLLUP = (
    "INSERT INTO usage_daily (day, agent_id, source, job_id, provider, model, local, calls,"
    " input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, estimated)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT DO UPDATE SET calls = calls + 1, input_tokens = input_tokens + excluded.input_tokens,"
    " output_tokens = output_tokens + excluded.output_tokens,"
    " cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens,"
    " cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,"
    " reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens, estimated = estimated + excluded.estimated"
)
MAX_BATCH = 500
_STOP = object()

Row = tuple[object, ...]


class UsageLedger:
    """The ledger of one gateway.db. `is_local(provider)` says whether that provider's endpoint is a
    local server; `prices()` gives the prices in effect (read when a row is written)."""

    def __init__(
        self,
        path: Path,
        is_local: Callable[[str], bool] = lambda _provider: False,
        prices: Callable[[], PriceBook] = PriceBook,
    ) -> None:
        self.path = path
        self._is_local = is_local
        self._prices = prices
        self._db: Database | None = None
        self._db_lock = threading.Lock()
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._idle = threading.Condition()
        self._unwritten = 0
        self._thread: threading.Thread | None = None
        self._closed = False
        self.dropped = 0
        self._told = False  # a damaged gateway.db has been reported
        """Rows the writer could not insert (the database failed); logged, never raised into a reply."""

    # -- writing --------------------------------------------------------------------------------

    def record(self, call: ModelCall) -> None:
        """Queue one finished call (the router's `CallObserver`); returns at once."""
        if self._closed:
            log.warning("usage ledger closed; a %s/%s call was not recorded", call.provider, call.model)
            return
        self.enqueue(self.row(call))

    def row(self, call: ModelCall) -> Row:
        u, s = call.usage, call.scope
        local = self._is_local(call.provider)
        tokens = Tokens(u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cache_write_tokens)
        cost = self._prices().cost(call.provider, call.model, local, tokens)
        day = time.strftime("%Y-%m-%d", time.localtime(call.started_at))
        return (
            call.started_at, day, s.agent_id, s.session_key, s.run_id, s.source, s.job_id, s.channel,
            call.provider, call.model, int(local), u.input_tokens, u.output_tokens, u.cached_input_tokens,
            u.cache_write_tokens, u.reasoning_tokens, int(call.estimated), call.status, call.error,
            call.first_token_ms, call.total_ms, cost,
        )  # fmt: skip

    def enqueue(self, row: Row) -> None:
        with self._idle:
            self._unwritten += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._write_loop, name="usage-ledger", daemon=True)
                self._thread.start()
        self._queue.put(row)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every row queued so far is committed (or dropped); False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._unwritten == 0, timeout)

    def close(self) -> None:
        """Write what is queued, stop the writer, close the database."""
        self._closed = True
        thread = self._thread
        if thread is not None:
            self._queue.put(_STOP)
            thread.join(30)
        with self._db_lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _write_loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            batch: list[Row] = [first]  # type: ignore[list-item]
            stop = False
            while len(batch) < MAX_BATCH:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:
                    stop = True
                    break
                batch.append(more)  # type: ignore[arg-type]
            try:
                self.db.write(partial(insert, rows=batch))
            except DatabaseError as exc:  # the user's to fix: one line, once, not a traceback per call
                self.dropped += len(batch)
                log.log(logging.DEBUG if self._told else logging.ERROR, "usage not recorded: %s", exc.message)
                self._told = True
            except Exception:
                self.dropped += len(batch)
                log.exception("usage ledger: %d model call row(s) could not be written", len(batch))
            with self._idle:
                self._unwritten -= len(batch)
                self._idle.notify_all()
            if stop:
                return

    # -- reading --------------------------------------------------------------------------------

    @property
    def db(self) -> Database:
        with self._db_lock:
            if self._db is None:
                self._db = Database(self.path, MIGRATIONS)
            return self._db

    def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """`fn` on the database after this process's queued rows are in."""
        self.flush()
        return self.db.read(fn)

    def insert_rows(self, rows: Sequence[Row]) -> None:
        """Rows as `row` builds them, in one transaction (imports, tests, the benchmark)."""
        self.db.write(lambda c: insert(c, rows))


def insert(conn: sqlite3.Connection, rows: Sequence[Row]) -> None:
    """The calls' rows and their day's sums; run inside one transaction, so both or neither are written."""
    conn.executemany(_INSERT, rows)
    conn.executemany(_ROLLUP, [_rollup_key(row) for row in rows])


def _rollup_key(row: Row) -> Row:
    _ts, day, agent, _session, _run, source, job, _channel, provider, model, local, *tokens = row
    inp, out, cached, written, reasoning, estimated = tokens[:6]
    return (day, agent or "", source, job or "", provider, model, local,
            inp, out, cached, written, reasoning, estimated)  # fmt: skip
