"""Group commit of concurrent inbox writes: the requests that arrive while one commit is under way share
the next transaction.

Each platform request (a Slack or Feishu event, a webhook POST) is acknowledged only after its message is
committed, and each commit is an fsync (gateway.db runs `synchronous=FULL`). A hundred senders at once
then wait for a hundred fsyncs one after another: Slack's acks reached p99 229 ms in the bench. Here the
first write starts a commit at once, and every write that comes in meanwhile waits for the next one,
which takes them all: an ack waits for at most two commits, however many arrive together.

A batch that fails (one write's statement raising, say) is not allowed to fail the others: its writes are
then committed one by one, each caller getting its own result or error.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import TypeVar, cast

from claw.store.db import Database

T = TypeVar("T")

Write = Callable[[sqlite3.Connection], T]


class GroupCommit:
    def __init__(self, db: Callable[[], Database]) -> None:
        self._db = db
        self._waiting: list[tuple[Write[object], asyncio.Future[object]]] = []
        self._task: asyncio.Task[None] | None = None

    async def write(self, fn: Write[T]) -> T:
        """Run `fn` in a transaction shared with the writes that arrive meanwhile; its result once committed."""
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._waiting.append((fn, future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._commit_all(), name="inbox-group-commit")
        result = await asyncio.shield(future)  # a caller that leaves keeps its write
        return cast(T, result)  # what `fn` returned

    async def _commit_all(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
            try:
                results = await self._db().awrite(_together([fn for fn, _future in batch]))
            except Exception:  # noqa: BLE001 - one write's failure must not fail the rest: each on its own
                await self._one_by_one(batch)
                continue
            for (_fn, future), result in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(result)

    async def _one_by_one(self, batch: list[tuple[Write[object], asyncio.Future[object]]]) -> None:
        for fn, future in batch:
            try:
                result = await self._db().awrite(fn)
            except Exception as exc:  # noqa: BLE001 - handed to the caller it belongs to
                if not future.done():
                    future.set_exception(exc)
            else:
                if not future.done():
                    future.set_result(result)


def _together(writes: list[Write[object]]) -> Write[list[object]]:
    return lambda conn: [fn(conn) for fn in writes]
