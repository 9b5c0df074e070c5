"""`ExecRecords.end_leftovers`: what a dead gateway's commands left running is killed, and nothing else.

The leftovers are real process trees (a session leader, a child in its session, a `setsid` child that left
it), recorded by a real process that has exited since — as a gateway killed with SIGKILL leaves them.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from claw.tools.exec_records import MARKER_NAME, ExecRecords
from tests.support.processes import REPO
from tests.tools.helpers import wait_until
from tests.tools.sandbox_support import running_with_arg, unique_sleep

_RECORD_AND_EXIT = (
    "import sys; from pathlib import Path; from claw.tools.exec_records import ExecRecords; "
    "ExecRecords(Path(sys.argv[1])).add(int(sys.argv[2]), sys.argv[3])"
)


Started = list[tuple[subprocess.Popen[bytes], list[str]]]


@pytest.fixture
def started() -> Iterator[Started]:
    """Trees a test starts; every process of them killed (the leaders reaped) after it, whatever it did."""
    trees: Started = []
    yield trees
    for proc, args in trees:
        for pid in [pid for arg in args for pid in running_with_arg(arg)]:
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait(10)


def tree(started: Started, marker: str | None) -> tuple[subprocess.Popen[bytes], list[str]]:
    """A session leader with a child in its session and a `setsid` child outside it, like a command's."""
    args = [unique_sleep() for _ in range(3)]
    env = {**os.environ, **({MARKER_NAME: marker} if marker else {})}
    command = f"sleep {args[0]} & setsid sleep {args[1]} & exec sleep {args[2]}"
    proc = subprocess.Popen(["/bin/sh", "-c", command], env=env, start_new_session=True)
    started.append((proc, args))
    assert wait_until(lambda: all(running_with_arg(a) for a in args)), "the tree did not start"
    return proc, args


def record_by_exited_process(directory: Path, pid: int, marker: str) -> Path:
    """Record `pid` from a separate process that then exits: the record of a gateway that is gone."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-c", _RECORD_AND_EXIT, str(directory), str(pid), marker], env=env, check=True)
    return directory / f"{pid}.json"


def test_a_dead_gateways_leftovers_are_killed_and_the_record_removed(tmp_path: Path, started: Started) -> None:
    records = ExecRecords(tmp_path / "exec-runs")
    marker = records.new_marker()
    proc, args = tree(started, marker)
    path = record_by_exited_process(records.directory, proc.pid, marker)
    assert stat.S_IMODE(records.directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    killed = records.end_leftovers()

    assert proc.pid in killed
    assert wait_until(lambda: not any(running_with_arg(a) for a in args)), [running_with_arg(a) for a in args]
    assert not path.exists()


def test_a_running_gateways_commands_are_left_alone(tmp_path: Path, started: Started) -> None:
    records = ExecRecords(tmp_path / "exec-runs")
    marker = records.new_marker()
    proc, args = tree(started, marker)
    path = records.add(proc.pid, marker)  # recorded by this process, which is alive

    assert records.end_leftovers() == []
    assert all(running_with_arg(a) for a in args)
    assert path is not None and path.exists()


def test_a_reused_pid_is_not_killed(tmp_path: Path, started: Started) -> None:
    """A record whose pid now names another process (another start time), and no marker on it: spared."""
    records = ExecRecords(tmp_path / "exec-runs")
    proc, args = tree(started, marker=None)
    path = record_by_exited_process(records.directory, proc.pid, records.new_marker())
    raw = json.loads(path.read_text())
    path.write_text(json.dumps({**raw, "startTime": raw["startTime"] - 1}))  # the recorded process started earlier

    assert records.end_leftovers() == []
    assert all(running_with_arg(a) for a in args)
    assert not path.exists()  # the record was stale; it goes


def test_an_unreadable_record_is_dropped(tmp_path: Path) -> None:
    records = ExecRecords(tmp_path / "exec-runs")
    records.directory.mkdir()
    (records.directory / "123.json").write_text("{not json")
    assert records.end_leftovers() == []
    assert list(records.directory.iterdir()) == []
