"""Cutting Markdown between top-level blocks."""

from __future__ import annotations

from claw.tui.markdown_chunks import block_starts, chunks, last_block_start


def test_block_starts_follow_top_level_blocks_only() -> None:
    text = "intro\n\n```py\na = 1\n\nb = 2\n```\n\n- one\n\n- two\n\nend"
    starts = block_starts(text)
    assert [text[s : s + 5] for s in starts] == ["intro", "```py", "- one", "end"]


def test_an_unfinished_code_block_is_the_last_block() -> None:
    text = "para\n\n```py\nx = 1\n\n\n"
    assert text[last_block_start(text) :] == "```py\nx = 1\n\n\n"


def test_chunks_rejoin_exactly_and_respect_the_limit() -> None:
    text = "\n\n".join(f"Paragraph {n} " + "x" * 90 for n in range(100))
    pieces = chunks(text, limit=1000)
    assert "".join(pieces) == text
    assert len(pieces) == 10 and all(p.startswith("Paragraph") for p in pieces)
    assert chunks("short") == ["short"]
