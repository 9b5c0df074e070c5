"""`kill -9` never leaves half a row: a writer killed mid-stream of inserts, and a gateway killed during a model
call, leave a database that passes its integrity check with every row whole (the hung call simply absent)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.fixtures import ClawEnv
from tests.support.model_server import CHAT_PATH, hang, tool_call
from tests.support.processes import REPO, wait_until
from tests.usage.conftest import rows

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from claw.providers.base import Usage
    from claw.providers.metering import CallScope, ModelCall
    from claw.usage.ledger import UsageLedger
    ledger = UsageLedger(Path(sys.argv[1]))
    n = 0
    while True:
        n += 1
        usage = Usage(n, 2 * n, n // 2, 0, n % 7)
        ledger.record(ModelCall(time.time(), CallScope("main", "k", f"r{n}", "chat"), "openai", "m" * (n % 50 + 1),
                                usage, False, "ok", None, 1.0, 2.0))
        if n % 200 == 0:
            ledger.flush()
    """
)


def _count(path: Path) -> int:
    if not path.exists():
        return 0
    conn = sqlite3.connect(path, timeout=5)
    try:
        return conn.execute("SELECT COUNT(*) FROM usage_calls").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not there yet
        return 0
    finally:
        conn.close()


def _check_whole(path: Path) -> list[sqlite3.Row]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return conn.execute("SELECT * FROM usage_calls ORDER BY id").fetchall()
    finally:
        conn.close()


def test_a_writer_killed_mid_insert_leaves_only_whole_rows(tmp_path: Path) -> None:
    db = tmp_path / "gateway.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}
    )
    try:
        wait_until(lambda: _count(db) >= 2000, timeout=60, what="2000 rows written")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    found = _check_whole(db)
    assert len(found) >= 2000
    for row in found:  # each row as the writer made it: every column, consistent with its own n
        n = int(row["run_id"][1:])
        assert (row["input_tokens"], row["output_tokens"], row["cached_input_tokens"]) == (n, 2 * n, n // 2)
        assert row["reasoning_tokens"] == n % 7 and row["model"] == "m" * (n % 50 + 1)
        assert row["source"] == "chat" and row["total_ms"] == 2.0 and row["day"]
    numbers = [int(row["run_id"][1:]) for row in found]
    assert numbers == list(range(1, len(numbers) + 1))  # in order, none skipped: only the tail is lost


def test_a_gateway_killed_during_a_model_call_leaves_the_calls_before_it(claw_env: ClawEnv) -> None:
    (claw_env.home / "workspace").mkdir()
    claw_env.server.script(tool_call("read", {"path": "SOUL.md"}), hang("half a reply"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "claw", "agent", "-m", "go"],
        cwd=REPO,
        env={**claw_env.env, "PYTHONPATH": str(REPO)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        claw_env.server.wait_for_requests(2, timeout=60, path=CHAT_PATH)  # the second call is under way
        wait_until(lambda: _count(claw_env.home / "gateway.db") == 1, what="the first call's row")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    (row,) = _check_whole(claw_env.home / "gateway.db")
    assert row["status"] == "ok" and row["input_tokens"] > 0 and row["source"] == "chat"
    assert rows(claw_env)[0]["id"] == row["id"]
