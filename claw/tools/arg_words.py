"""The arguments a program will really receive, and whether a path among them leaves the workspace.

`/bin/sh` still expands words after the policy has read them. `effective_args` does
the expansions it can reproduce exactly — a leading `~`, and globs made only of
unquoted `*` and `?` — and refuses the rest (`$…`, `{a,b}`, `[…]`, partly quoted
globs, globs that would also match `.` and `..`), because a check of words the
program never receives proves nothing.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from pathlib import Path

from claw.errors import ClawError
from claw.tools.shell_chain import BRACE, DOLLAR, GLOB, LATE_TILDE, TILDE, Word

MAX_MATCHES = 2_000
"""A glob that matches more files than this is not expanded for checking (the check would be slow)."""


class Unexpandable(ClawError):
    """A word whose expansion the policy cannot reproduce; the message says which and why."""


def effective_args(words: Sequence[Word], cwd: Path, *, keep_order: bool = False) -> list[str]:
    """The argument list after the shell's expansions, or `Unexpandable`.

    Python sorts glob matches by code point, the shell by the locale's collation, so with
    `keep_order` (a program that reads its arguments by position) any glob is refused."""
    args: list[str] = []
    for word in words:
        if word.expands & {DOLLAR, BRACE, LATE_TILDE}:
            raise Unexpandable(f"the shell expands {word.raw!r} into something this check cannot see")
        text = os.path.expanduser(word.text) if TILDE in word.expands else word.text
        if GLOB in word.expands:
            if keep_order:
                raise Unexpandable(f"the shell expands the pattern {word.raw!r}, and the order of its matches matters")
            args.extend(_glob(word, text, cwd))
        else:
            args.append(text)
    return args


def _glob(word: Word, text: str, cwd: Path) -> list[str]:
    if "[" in text or any(q in word.raw for q in "'\"\\"):
        raise Unexpandable(f"the pattern {word.raw!r} is not one this check expands")
    if any(part.startswith(".") and ("*" in part or "?" in part) for part in text.split("/")):
        raise Unexpandable(f"the pattern {word.raw!r} also matches . and ..")
    matches = sorted(glob.glob(text, root_dir=cwd))  # an absolute pattern ignores root_dir
    if len(matches) > MAX_MATCHES:
        raise Unexpandable(f"the pattern {word.raw!r} matches more than {MAX_MATCHES} files")
    return matches or [text]  # no match: sh passes the word on unchanged


def outside_reason(path: str, base: Path, workspace: Path, *, existing_only: bool) -> str | None:
    """Why `path` (relative to `base`) is not inside `workspace`, or None.

    Symbolic links are followed, so a link in the workspace that points out counts as out.
    With `existing_only`, a path that does not exist passes: a read-only program cannot read
    what is not there, and the words of a search pattern need not be vouched for."""
    real = Path(os.path.realpath(base / path))
    root = Path(os.path.realpath(workspace))
    if real == root or root in real.parents:
        return None
    if existing_only and not os.path.lexists(real):
        return None
    return f"{path} is outside the workspace"
