"""Files claw rewrites whole, changed by several processes at once: every change lands.

Each writer reads the file, changes its copy and replaces the file; without the file's lock the
last replace wins and the others' changes are gone (these tests lose most of them on such code).
"""

from __future__ import annotations

import json
import multiprocessing
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any

from claw import config_edit
from claw.agent.memory_flush import _append
from claw.store.file_lock import lock_path, locked
from claw.tools.exec_approvals import ExecApprovalsStore
from tests.store.together import run_together

_PROCESSES = 4
_EACH = 12


def _set_hooks(n: int, path: Path) -> None:
    for i in range(_EACH):
        with config_edit.editing(path) as doc:
            config_edit.set_value(doc, ("hooks", "entries", f"h{n}-{i}"), {"enabled": False})


def test_concurrent_config_edits_all_land(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# my settings\n", encoding="utf-8")
    run_together(_set_hooks, _PROCESSES, path)
    text = path.read_text(encoding="utf-8")
    entries = tomllib.loads(text)["hooks"]["entries"]
    assert set(entries) == {f"h{n}-{i}" for n in range(_PROCESSES) for i in range(_EACH)}
    assert text.startswith("# my settings")


def test_an_edit_that_changes_nothing_does_not_rewrite_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[hooks]\n", encoding="utf-8")
    before = path.stat().st_ino
    with config_edit.editing(path) as doc:
        assert not config_edit.unset_value(doc, ("hooks", "entries", "nothing"))
    assert path.stat().st_ino == before


def _remember(n: int, path: Path) -> None:
    store = ExecApprovalsStore(path)
    for i in range(_EACH):
        store.remember("main", f"/usr/bin/tool-{n}-{i}", f"tool-{n}-{i} --version")


def test_concurrent_exec_approvals_all_land(tmp_path: Path) -> None:
    path = tmp_path / "exec-approvals.json"
    run_together(_remember, _PROCESSES, path)
    patterns = ExecApprovalsStore(path).allowlist("main")
    assert sorted(patterns) == sorted(f"/usr/bin/tool-{n}-{i}" for n in range(_PROCESSES) for i in range(_EACH))
    assert json.loads(path.read_text())["version"] == 1


def _flush_notes(n: int, path: Path) -> None:
    workspace = path.parent.parent
    rel = path.relative_to(workspace).as_posix()
    for i in range(_EACH):
        _append(workspace, rel, f"note {n}-{i}", datetime(2026, 12, 1, 9, 30), f"agent:main:s{n}")


def test_concurrent_memory_flushes_keep_every_note(tmp_path: Path) -> None:
    path = tmp_path / "memory" / "2026-12-01.md"
    run_together(_flush_notes, _PROCESSES, path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# 2026-12-01\n") and text.count("# 2026-12-01\n") == 1
    for n in range(_PROCESSES):
        for i in range(_EACH):
            assert f"\nnote {n}-{i}\n" in text


def test_the_lock_is_hidden_private_and_exclusive(tmp_path: Path) -> None:
    target = tmp_path / "sessions.json"
    context = multiprocessing.get_context("fork")
    go, got = context.Event(), context.Event()
    # Forked before the lock is taken: a child forked while it is held would share the held descriptor.
    other = context.Process(target=_take_lock, args=(target, go, got))
    other.start()
    with locked(target):
        lock = lock_path(target)
        assert lock.name == ".sessions.json.lock" and (lock.stat().st_mode & 0o777) == 0o600
        go.set()
        assert not got.wait(0.5)  # held here: the other process waits for it
    assert got.wait(10)  # released: the other process gets it
    other.join(10)
    assert not target.exists()


def _take_lock(target: Path, go: Any, got: Any) -> None:
    go.wait(10)
    with locked(target):
        got.set()
