"""A name swapped between a real entry and a symlink to outside, while read and write run: nothing leaks.

A second process exchanges `workspace/box` (a real directory) with `workspace/.swap` (a symlink to
the outside directory) as fast as it can, with `renameat2(RENAME_EXCHANGE)`, so `box` always
exists and is one or the other; a variant does the same to a file. A check-then-open
implementation reads the outside file, or writes into the outside directory, whenever the swap
lands between its check and its open.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.tools.conftest import CallTool
from tests.tools.helpers import snapshot

RACE_SECONDS = 1.5
INSIDE = "inside the workspace\n"
SECRET = "OUTSIDE SECRET\n"

_FLIPPER = r"""
import ctypes, os, sys, time

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
first, second, stop = (arg.encode() for arg in sys.argv[1:4])
flips, give_up = 0, time.monotonic() + 60  # never outlive a test that died without stopping it
print("ready", flush=True)
while not os.path.exists(stop) and time.monotonic() < give_up:
    if libc.renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
    flips += 1
if flips % 2:  # leave the real directory at its own name
    libc.renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE)
print(flips, flush=True)
"""


def _has_rename_exchange() -> bool:
    return sys.platform == "linux" and hasattr(ctypes.CDLL(None), "renameat2")


pytestmark = pytest.mark.skipif(not _has_rename_exchange(), reason="needs Linux renameat2(RENAME_EXCHANGE)")


@pytest.fixture
def box(workspace: Path, outside: Path) -> Path:
    """`workspace/box`, a real folder, and `workspace/.swap`, a symlink to `outside`; both hold note.txt."""
    (workspace / "box").mkdir()
    (workspace / "box" / "note.txt").write_text(INSIDE)
    (outside / "note.txt").write_text(SECRET)
    (workspace / ".swap").symlink_to(outside, target_is_directory=True)
    return workspace / "box"


@contextmanager
def _swapping(real: Path, tmp_path: Path) -> Iterator[Counter[str]]:
    """Exchange `real` with `.swap` beside it during the block; the yielded counter gets the flip count."""
    stop = tmp_path / "stop-flipping"
    flipper = subprocess.Popen(
        [sys.executable, "-c", _FLIPPER, str(real), str(real.parent / ".swap"), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    stats: Counter[str] = Counter()
    try:
        assert flipper.stdout is not None and flipper.stdout.readline() == "ready\n"
        yield stats
    finally:
        stop.touch()
        out, _ = flipper.communicate(timeout=30)
    assert flipper.returncode == 0, out
    stats["flips"] = int(out)
    assert not real.is_symlink()


async def _for_a_while(action: Callable[[], Awaitable[str]]) -> Counter[str]:
    """Call `action` again and again for `RACE_SECONDS`; how often each outcome came back."""
    outcomes: Counter[str] = Counter()
    deadline = time.monotonic() + RACE_SECONDS
    while time.monotonic() < deadline:
        outcomes[await action()] += 1
    return outcomes


@pytest.fixture
def note(workspace: Path, outside: Path) -> Path:
    """`workspace/note.txt`, a real file, and `workspace/.swap`, a symlink to the outside note.txt."""
    (workspace / "note.txt").write_text(INSIDE)
    (outside / "note.txt").write_text(SECRET)
    (workspace / ".swap").symlink_to(outside / "note.txt")
    return workspace / "note.txt"


@pytest.mark.parametrize("swapped", ["folder", "file"])
async def test_read_never_returns_an_outside_byte_while_a_name_is_swapped(
    call: CallTool, request: pytest.FixtureRequest, tmp_path: Path, swapped: str
) -> None:
    target: Path = request.getfixturevalue("box" if swapped == "folder" else "note")
    path = "box/note.txt" if swapped == "folder" else "note.txt"
    texts: list[str] = []

    async def read() -> str:
        result = await call("read", path=path)
        texts.append(result.text)
        if result.text == INSIDE:
            return "inside"
        return "refused" if result.text == f"path escapes workspace: {path}" else result.text

    with _swapping(target, tmp_path) as stats:
        outcomes = await _for_a_while(read)

    leaked = [text for text in texts if "OUTSIDE" in text]
    assert leaked == [], f"{len(leaked)} of {len(texts)} reads returned the outside file"
    assert stats["flips"] > 1000, stats  # the swap really ran throughout
    assert set(outcomes) <= {"inside", "refused"}, outcomes
    assert outcomes["inside"] > 0 and outcomes["refused"] > 0, outcomes  # both states were seen


async def test_write_never_lands_outside_while_a_folder_is_swapped(
    call: CallTool, box: Path, outside: Path, tmp_path: Path
) -> None:
    before = snapshot(outside)

    async def write() -> str:
        result = await call("write", path="box/new.txt", content="written by the tool\n")
        if result.text == "wrote 20 bytes to box/new.txt":
            return "written"
        return "refused" if result.text == "path escapes workspace: box/new.txt" else result.text

    with _swapping(box, tmp_path) as stats:
        outcomes = await _for_a_while(write)

    assert snapshot(outside) == before
    assert stats["flips"] > 1000, stats
    assert set(outcomes) <= {"written", "refused"}, outcomes
    assert outcomes["written"] > 0 and outcomes["refused"] > 0, outcomes
    assert (box / "new.txt").read_text() == "written by the tool\n"
    assert sorted(os.listdir(box)) == ["new.txt", "note.txt"]  # no temp file left behind
