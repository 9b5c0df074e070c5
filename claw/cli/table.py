"""Tables that fit the terminal: one line a row, the widest flexible cells cut with "…" first.

Every listing (`claw sessions ls`, `skills ls`, …) prints through `print_table`, so they all behave
alike. The width is the terminal's, or 80 columns when stdout is not a terminal (`COLUMNS` overrides
both, as `shutil.get_terminal_size` reads it). Fixed columns (ids, counts, dates, states) are never
cut; flexible ones (keys, names, paths, messages) give up room widest first, down to a floor, then
down to their header. A `cut="note"` column holds a key with a note after it (`0 9 * * 1-5 (At 09:00 …)`,
`myfork (fork at message 8)`): its notes shrink first, and its keys only once free text is down to its floor.
A cell never wraps: its whitespace is collapsed and it is cut with "…".
`--wide` turns cutting off; `--json` has every value as it is.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from rich.cells import cell_len, get_character_cell_size

GAP = "  "
ELLIPSIS = "…"
FALLBACK_WIDTH = 80
"""Columns when stdout is not a terminal (a pipe, a file) and COLUMNS is not set."""


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its header and how it may be squeezed."""

    header: str
    flex: bool = False
    """May be cut to fit the width; a fixed column is always shown whole."""
    floor: int = 10
    """A flexible column is cut below this many cells (or its header's width) only when nothing else can give."""
    cut: Literal["end", "middle", "note"] = "end"
    """Where a cut value loses its text: paths and keys keep both ends (their tails tell rows apart); a
    key followed by a note in parentheses loses the note first."""
    right: bool = False
    """Align right (numbers)."""


def terminal_width() -> int:
    """The terminal's width in cells; `FALLBACK_WIDTH` when stdout is not one."""
    return shutil.get_terminal_size((FALLBACK_WIDTH, 24)).columns


def one_line(value: object) -> str:
    """`value` as a single-line cell: None is "—", runs of whitespace become one space, control characters
    and bidi controls are escaped (a preview can hold a model's escape sequences, a label a right-to-left
    override: a table never passes them to the terminal)."""
    if value is None:
        return "—"
    from claw.untrusted import shown

    return shown(" ".join(str(value).split()))


def local_time(iso: str | int | float | None) -> str:
    """An ISO 8601 time, or milliseconds since the epoch (the gateway's clock on the wire), as
    `2026-12-01 22:10` in this host's zone: short enough to stay whole in a table."""
    if iso is None or iso == "":
        return "—"
    if isinstance(iso, int | float):
        return datetime.fromtimestamp(iso / 1000).astimezone().strftime("%Y-%m-%d %H:%M")
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def note_start(text: str) -> int:
    """Where the note after a key starts (` (`), or the text's length when it has none."""
    at = text.find(" (")
    return len(text) if at < 0 else at


def _kept(text: str) -> int:
    """The cells a `cut="note"` cell keeps while anything else can give: its key, and " …" for a note."""
    at = note_start(text)
    return cell_len(text[:at]) + (2 if at < len(text) else 0)


def cut(text: str, width: int, where: Literal["end", "middle", "note"] = "end") -> str:
    """`text` in at most `width` cells, the lost part shown as "…"."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    if where == "note":  # the key whole while it fits, the note shrinking after it; else the key's middle goes
        key = text[: note_start(text)]
        return _leading(text, width - 1) + ELLIPSIS if cell_len(key) <= width - 1 else cut(key, width, "middle")
    room = width - 1
    if where == "middle":
        head = room // 2
        tail = _leading(text[::-1], room - head)[::-1]
        return _leading(text, head) + ELLIPSIS + tail
    return _leading(text, room) + ELLIPSIS


def _leading(text: str, cells: int) -> str:
    """The longest start of `text` that takes at most `cells` cells (a wide character does not split)."""
    used = 0
    for index, ch in enumerate(text):
        used += get_character_cell_size(ch)
        if used > cells:
            return text[:index]
    return text


def fit(columns: Sequence[Column], natural: Sequence[int], width: int, keep: Sequence[int] | None = None) -> list[int]:
    """Column widths that add up (with the gaps) to at most `width` where the flexible columns allow it.

    The widest flexible column gives up one cell at a time (of two as wide, the one further right), so the
    long message or path shrinks before the short name next to it; first down to each column's floor, then,
    if that is not enough, down to its header. Fixed columns keep their natural width, so a terminal too
    narrow for them overflows. `keep`: a floor per column that only the last pass goes below (the keys of
    a `cut="note"` column: the free text of every other column gives way first)."""
    widths = list(natural)
    excess = sum(widths) + len(GAP) * (len(widths) - 1) - width
    keep = keep or [0] * len(columns)
    soft = [min(n, max(c.floor, cell_len(c.header), k)) for c, n, k in zip(columns, natural, keep, strict=True)]
    keys = [min(n, max(cell_len(c.header), k)) for c, n, k in zip(columns, natural, keep, strict=True)]
    hard = [min(n, cell_len(c.header)) for c, n in zip(columns, natural, strict=True)]
    for floors in (soft, keys, hard):
        while excess > 0:
            shrinkable = [i for i, c in enumerate(columns) if c.flex and widths[i] > max(floors[i], 1)]
            if not shrinkable:
                break
            widest = max(reversed(shrinkable), key=lambda i: widths[i])  # a tie: the right one (the message)
            widths[widest] -= 1
            excess -= 1
    return widths


def render(
    columns: Sequence[Column], rows: Iterable[Sequence[object]], *, width: int | None = None, wide: bool = False
) -> list[str]:
    """The table's lines, header first: each cell on one line, cut to fit `width` unless `wide`."""
    header = [column.header for column in columns]
    body = [[one_line(value) for value in row] for row in rows]
    natural = [max(cell_len(line[i]) for line in (header, *body)) for i in range(len(columns))]
    keep = [max((_kept(line[i]) for line in body), default=0) if c.cut == "note" else 0 for i, c in enumerate(columns)]
    widths = natural if wide else fit(columns, natural, terminal_width() if width is None else width, keep)
    lines = []
    for line in (header, *body):
        cells = []
        for column, text, size in zip(columns, line, widths, strict=True):
            shown = cut(text, size, column.cut)
            pad = " " * (size - cell_len(shown))
            cells.append(pad + shown if column.right else shown + pad)
        lines.append(GAP.join(cells).rstrip())
    return lines


def print_table(columns: Sequence[Column], rows: Iterable[Sequence[object]], *, wide: bool = False) -> None:
    """Print the table to stdout; the header in bold on a terminal (unless NO_COLOR is set)."""
    header, *body = render(columns, rows, wide=wide)
    if sys.stdout.isatty() and not os.environ.get("NO_COLOR"):
        header = f"\x1b[1m{header}\x1b[0m"
    sys.stdout.write("\n".join([header, *body]) + "\n")
