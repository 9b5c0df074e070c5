"""Splitting a shell command line into the simple commands it chains together.

The allowlist check needs every command that `/bin/sh -c` would start, so this
splitter errs on the side of finding *more* segments and more hazards than the
shell would, never fewer: it splits on `;`, `&&`, `||`, `|`, `&` and newlines
outside quotes, and reports as hazards anything it will not reason about —
command substitution (`$(…)`, backticks, even inside quotes), redirections and
subshell parentheses outside quotes, and quotes it cannot balance.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

_SEPARATORS = frozenset(";&|\n")


@dataclass(frozen=True, slots=True)
class ShellChain:
    """The argv of each simple command in a command line, or the reason it cannot be vouched for."""

    segments: tuple[tuple[str, ...], ...]
    hazard: str | None = None


def split_chain(command: str) -> ShellChain:
    """Split `command` into per-segment argv lists; `hazard` is set when the line is not a plain chain."""
    if "$(" in command or "`" in command:
        return ShellChain((), "command substitution")
    pieces: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i, end = 0, len(command)
    while i < end:
        ch = command[i]
        step = 2 if ch == "\\" and i + 1 < end and quote != "'" else 1
        if step == 2:  # an escaped character is never an operator or a quote
            current.append(command[i : i + 2])
        elif quote is not None:
            quote = None if ch == quote else quote
            current.append(ch)
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch in "<>":
            return ShellChain((), "redirection")
        elif ch in "()":
            return ShellChain((), "subshell")
        elif ch in _SEPARATORS:
            pieces.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += step
    if quote is not None:
        return ShellChain((), "unbalanced quotes")
    pieces.append("".join(current))
    return _parse(pieces)


def _parse(pieces: list[str]) -> ShellChain:
    segments: list[tuple[str, ...]] = []
    for piece in pieces:
        try:
            argv = shlex.split(piece, comments=False, posix=True)
        except ValueError:
            return ShellChain((), "unparseable command")
        if argv:
            segments.append(tuple(argv))
    if not segments:
        return ShellChain((), "empty command")
    return ShellChain(tuple(segments))
