"""`claw.cli.table`: the rules every listing's layout follows (the real commands are in test_tables.py)."""

from __future__ import annotations

from rich.cells import cell_len

from claw.cli.table import Column, cut, local_time, one_line, render

KEY = Column("KEY", flex=True, floor=12, cut="middle")
ID = Column("ID")
COUNT = Column("N", right=True)
TEXT = Column("TEXT", flex=True, floor=8)


def test_the_widest_flexible_column_gives_way_first_and_fixed_ones_stay_whole() -> None:
    rows = [("agent:main:telegram:direct:42", "0123456789abcdef", 7, "word " * 40)]
    header, line = render((KEY, ID, COUNT, TEXT), rows, width=80)
    assert cell_len(line) == 80 and header.startswith("KEY")
    key, ident, count, text = line.split("  ")
    assert ident == "0123456789abcdef" and count == "7"  # fixed: whole
    assert key == "agent:main:telegram:direct:42"  # narrower than the message, so not touched
    assert text.endswith("…") and text.startswith("word word")


def test_both_flexible_columns_shrink_to_their_floor_then_to_their_header() -> None:
    rows = [("k" * 50, "id", 1, "t" * 50)]
    _, line = render((KEY, ID, COUNT, TEXT), rows, width=30)  # 2 + 1 + 3 gaps of 2: 21 left
    key, _, _, text = line.split("  ")
    assert (cell_len(key), cell_len(text)) == (12, 9)  # the key's floor is 12, the text's 8
    _, narrow = render((KEY, ID, COUNT, TEXT), rows, width=20)  # 11 left: below the floors, not the headers
    key, _, _, text = narrow.split("  ")
    assert cell_len(key) + cell_len(text) == 11 and cell_len(key) >= 3 and cell_len(text) >= 4


def test_too_narrow_for_the_fixed_columns_overflows_instead_of_cutting_them() -> None:
    _, line = render((ID, TEXT), [("a-long-fixed-identifier", "t" * 30)], width=20)
    assert line == "a-long-fixed-identifier  ttt…"  # the text down to its header's width, the id whole


def test_wide_cuts_nothing() -> None:
    rows = [("agent:main:telegram:direct:42", "0123456789abcdef", 7, "word " * 40)]
    _, line = render((KEY, ID, COUNT, TEXT), rows, width=60, wide=True)
    assert "…" not in line and line.endswith(("word " * 40).strip())


def test_cells_are_one_line_without_control_characters() -> None:
    assert one_line("first line\nsecond\tline  \r\n") == "first line second line"
    assert one_line("red \x1b[31mtext\x07") == "red \\x1b[31mtext\\x07"  # shown, never sent to the terminal
    assert one_line("label \u202egnp.exe") == "label \\u202egnp.exe"  # a right-to-left override, from a channel
    assert one_line("👩‍💻 café") == "👩‍💻 café"  # an emoji's joiner and accents stay
    assert one_line(None) == "—" and one_line(3) == "3"
    lines = render((ID, TEXT), [("x", "a\nb\nc\nd\ne")], width=80)
    assert lines == ["ID  TEXT", "x   a b c d e"]


def test_cuts_count_terminal_cells_and_keep_both_ends_in_the_middle() -> None:
    assert cut("日本語のテキスト", 7) == "日本語…" and cell_len(cut("日本語のテキスト", 8)) <= 8
    assert cut("/home/me/.local/share/claw/workspace-work", 20, "middle") == "/home/me/…space-work"
    assert cut("/home/me/.local/share/claw/workspace-work", 20) == "/home/me/.local/sha…"
    assert cut("short", 10) == "short" and cut("abc", 1) == "…"


def test_numbers_align_right_and_lines_carry_no_trailing_spaces() -> None:
    lines = render((COUNT, ID), [(5, "a"), (120, "")], width=80)
    assert lines == ["  N  ID", "  5  a", "120"]


def test_times_are_compact_and_local() -> None:
    shown = local_time("2026-12-01T22:10:05.123Z")
    assert len(shown) == 16 and shown[4] == "-" and shown[13] == ":"
    assert local_time(None) == "—" and local_time("not a time") == "not a time"


def test_a_key_with_a_note_loses_the_note_never_the_key() -> None:
    label = Column("SESSION", flex=True, floor=24, cut="note")
    rows = [("└─ myfork (fork at message 8)", "word " * 40), ("agent:main:main", "x")]
    _, fork, _ = render((label, TEXT), rows, width=40)
    assert fork.startswith("└─ myfork (") and "…" in fork.split("  ")[0]  # the note cut, the key whole
    schedule = Column("SCHEDULE", flex=True, cut="note")
    _, line = render(
        (ID, schedule, TEXT), [("3f2a9c1b", "0 9 * * 1-5 (At 09:00, Monday through Friday)", "t" * 30)], width=35
    )
    assert line.split("  ")[1] == "0 9 * * 1-5 …"  # the free text down to its floor, the note gone first
    assert cut("0 9 * * 1-5 (At 09:00)", 16, "note") == "0 9 * * 1-5 (At…"
    assert cut("agent:main:subagent:f0262053", 12, "note") == "agent…262053"  # no note: the middle goes
