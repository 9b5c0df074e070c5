"""Small helpers shared by the tool tests."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path


def snapshot(root: Path) -> dict[str, str]:
    """Every entry below `root` with its content (or link target), to prove nothing changed."""
    state: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                state[rel] = "-> " + os.readlink(path)
            elif path.is_file():
                state[rel] = path.read_text(errors="replace")
            else:
                state[rel] = "<dir>"
    return state


def process_gone(pid: int) -> bool:
    """True once `pid` no longer runs: absent, or a zombie that only waits to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return True
    return stat[stat.rfind(b")") + 2 :].split()[0] in (b"Z", b"X")


def wait_until(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Poll `predicate` until it holds or `timeout` seconds pass; its last value."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
