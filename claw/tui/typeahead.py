"""What the user typed before the console was on screen.

`claw chat` takes a moment to draw its first frame (seconds on a busy machine), and what is typed meanwhile waits in
the terminal's input queue, line-edited by the terminal and with each Enter already turned into a newline (the
terminal's ICRNL). Textual would read that newline as Ctrl+J — a newline in the prompt, not a send — so
`take_typed_ahead` reads the queue itself just before Textual starts, and the chat screen puts the text in the prompt,
each complete line sent once the console is ready. From then on the terminal stays as Textual wants it (no line
editing, no echo, Enter as a carriage return), so nothing typed before Textual reads it is translated either;
`restore` puts the terminal back as it was, after the console exits.
"""

from __future__ import annotations

import os
import re
import sys
import termios
from dataclasses import dataclass, field
from typing import Any

_ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|O.|.)?", re.DOTALL)
"""Cursor and function keys (CSI and SS3 sequences, Alt+key): not text for the prompt."""
_CONTROLS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


@dataclass
class TypedAhead:
    """The text typed before the console started (newlines where Enter was pressed), and the terminal to restore."""

    text: str = ""
    _fd: int | None = None
    _attrs: list[Any] | None = field(default=None, repr=False)

    def restore(self) -> None:
        """Put the terminal back as it was before `take_typed_ahead` (Textual restores only its own start state)."""
        if self._fd is not None and self._attrs is not None:
            try:
                termios.tcsetattr(self._fd, termios.TCSANOW, self._attrs)
            except termios.error:
                pass
            self._attrs = None


def take_typed_ahead(stream: Any = None) -> TypedAhead:
    """Read what waits in the terminal's input queue of `stream` (stdin), leaving the terminal in raw input mode.
    Nothing (and the terminal untouched) when it is not a terminal."""
    stream = stream or sys.__stdin__
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return TypedAhead()
        before = termios.tcgetattr(fd)
    except (AttributeError, OSError, ValueError, termios.error):
        return TypedAhead()
    raw = termios.tcgetattr(fd)
    raw[3] &= ~(termios.ICANON | termios.ECHO)  # lflag: a half-typed line is readable too, and nothing echoes
    raw[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR)  # iflag: Enter stays a carriage return from now on
    raw[6] = list(raw[6])
    raw[6][termios.VMIN], raw[6][termios.VTIME] = 0, 0  # a read returns what is queued, never waits
    chunks: list[bytes] = []
    try:
        termios.tcsetattr(fd, termios.TCSANOW, raw)
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
        raw[6][termios.VMIN] = 1
        termios.tcsetattr(fd, termios.TCSANOW, raw)
    except (OSError, termios.error):
        pass
    return TypedAhead(typed_text(b"".join(chunks)), fd, before)


def typed_text(data: bytes) -> str:
    """The text in `data` as typed at a terminal: Enter (CR or LF) as a newline, keys that are not text dropped."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", _ESCAPES.sub("", text))
