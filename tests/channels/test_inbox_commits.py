"""`GroupCommit`: writes that arrive while a commit is under way share the next transaction of the real
gateway.db; a write that fails fails alone."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from claw.channels.inbox_commits import GroupCommit
from claw.store.db import Database


class CountingDb(Database):
    """The real database, counting its write transactions."""

    transactions = 0

    async def awrite(self, fn: Any) -> Any:
        self.transactions += 1
        return await super().awrite(fn)


@pytest.fixture
def db(tmp_path: Path) -> CountingDb:
    found = CountingDb(tmp_path / "gateway.db")
    found.write(lambda c: c.execute("CREATE TABLE t (n INTEGER UNIQUE)"))
    found.transactions = 0
    return found


def insert(n: int) -> Any:
    def write(conn: sqlite3.Connection) -> int:
        conn.execute("INSERT INTO t (n) VALUES (?)", (n,))
        return n * 10

    return write


async def test_concurrent_writes_share_transactions_and_each_gets_its_result(db: CountingDb) -> None:
    commits = GroupCommit(lambda: db)
    results = await asyncio.gather(*(commits.write(insert(n)) for n in range(50)))
    assert results == [n * 10 for n in range(50)]
    assert db.read(lambda c: [r[0] for r in c.execute("SELECT n FROM t ORDER BY rowid")]) == list(range(50))
    assert db.transactions <= 2  # the first alone, the 49 that arrived meanwhile together


async def test_a_failing_write_fails_alone(db: CountingDb) -> None:
    commits = GroupCommit(lambda: db)
    await commits.write(insert(7))
    outcomes = await asyncio.gather(commits.write(insert(1)), commits.write(insert(7)), commits.write(insert(2)),
                                    return_exceptions=True)  # fmt: skip
    assert outcomes[0] == 10 and outcomes[2] == 20
    assert isinstance(outcomes[1], Exception) and "UNIQUE" in str(outcomes[1])
    assert db.read(lambda c: sorted(r[0] for r in c.execute("SELECT n FROM t"))) == [1, 2, 7]
