"""Atomic replace: the target holds the old or the new content, and no temp file is left behind."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from claw.store.atomic import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    remove_stale_temps,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_write_creates_file_with_private_mode_and_no_temp(tmp_path: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        target = tmp_path / "state.json"
        atomic_write_json(target, {"a": 1, "ünï": "çødé"})
    finally:
        os.umask(old_umask)
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": 1, "ünï": "çødé"}
    assert _mode(target) == 0o600
    assert os.listdir(tmp_path) == ["state.json"]


def test_replace_overwrites_content_and_applies_requested_mode(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_text("old")
    target.chmod(0o666)
    atomic_write_text(target, "new\n", mode=0o644)
    assert target.read_text() == "new\n"
    assert _mode(target) == 0o644
    atomic_write_bytes(target, b"\x00bytes")
    assert target.read_bytes() == b"\x00bytes"
    assert _mode(target) == 0o600


def test_unserialisable_value_leaves_old_content_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "sessions.json"
    atomic_write_json(target, {"keep": True})
    with pytest.raises(TypeError):
        atomic_write_json(target, {"bad": object()})
    assert json.loads(target.read_text()) == {"keep": True}
    assert os.listdir(tmp_path) == ["sessions.json"]


@pytest.mark.parametrize("step", ["fsync", "replace"])
def test_failure_mid_write_removes_temp_and_keeps_old_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    # Fault injection: the disk refuses at one step of the recipe.
    target = tmp_path / "config.toml"
    atomic_write_text(target, "old = 1\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, step, refuse)
    with pytest.raises(OSError, match="No space"):
        atomic_write_text(target, "new = 2\n")
    monkeypatch.undo()
    assert target.read_text() == "old = 1\n"
    assert os.listdir(tmp_path) == ["config.toml"]


def test_remove_stale_temps_keeps_fresh_ones_and_the_target(tmp_path: Path) -> None:
    target = tmp_path / "sessions.json"
    target.write_text("{}")
    stale = tmp_path / ".sessions.json.abc123.tmp"
    fresh = tmp_path / ".sessions.json.def456.tmp"
    other = tmp_path / ".other.json.zzz.tmp"
    for path in (stale, fresh, other):
        path.write_text("partial")
    an_hour_ago = time.time() - 3600
    os.utime(stale, (an_hour_ago, an_hour_ago))
    os.utime(other, (an_hour_ago, an_hour_ago))

    assert remove_stale_temps(target) == 1
    assert sorted(os.listdir(tmp_path)) == sorted([target.name, fresh.name, other.name])


def test_an_object_is_written_one_member_per_line(tmp_path: Path) -> None:
    target = tmp_path / "sessions.json"
    value = {"agent:main:main": {"n": 1, "extra": {"é": ["x", None]}}, "agent:main:two": {"n": 2}}
    atomic_write_json(target, value)
    text = target.read_text(encoding="utf-8")
    assert json.loads(text) == value
    assert text.splitlines()[1].startswith('"agent:main:main": {') and len(text.splitlines()) == 4
    for empty in ({}, [], "plain"):
        atomic_write_json(target, empty)
        assert json.loads(target.read_text()) == empty
