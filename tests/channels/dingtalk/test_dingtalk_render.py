"""Markdown → DingTalk's Markdown subset (no code blocks, no inline code, no strikethrough), split at the limit."""

from __future__ import annotations

from claw.channels.dingtalk.adapter import _title
from claw.channels.render import render_parts, to_dingtalk_markdown

NBSP = "\u00a0"


def test_headings_lists_links_and_bold_stay_and_unsupported_markup_is_made_plain() -> None:
    got = to_dingtalk_markdown("# Plan\n* **one** and __two__\n1. [docs](https://x.io/a?b=1)\n`a*b` ~~old~~ > q")
    assert got == "# Plan\n- **one** and **two**\n1. [docs](https://x.io/a?b=1)\na*b old > q"


def test_a_code_block_becomes_quoted_lines_that_keep_their_indentation() -> None:
    got = to_dingtalk_markdown("```python\ndef f():\n    return 1\n```")
    assert got == f"> def f():  \n> {NBSP * 4}return 1"
    assert "```" not in got


def test_a_long_reply_splits_between_paragraphs_and_a_long_code_block_into_quoted_parts() -> None:
    text = "\n\n".join(f"Paragraph {i}: " + "word " * 40 for i in range(6))
    parts = render_parts(text, "dingtalk-markdown", 300)  # one paragraph (~210 chars) per part
    assert len(parts) == 6 and all(len(p) <= 300 for p in parts)
    assert [p.split(":")[0] for p in parts] == [f"Paragraph {i}" for i in range(6)]
    code = "```\n" + "\n".join(f"  line {i}" for i in range(80)) + "\n```"
    pieces = render_parts(code, "dingtalk-markdown", 300)
    assert len(pieces) > 1 and all(len(p) <= 300 for p in pieces)
    lines = [line for p in pieces for line in p.split("  \n")]
    assert all(line.startswith(f"> {NBSP * 2}line ") for line in lines)
    assert [int(line.rsplit(" ", 1)[1]) for line in lines] == list(range(80))


def test_the_title_is_the_first_line_without_markup() -> None:
    assert _title("## **Status** report\n\nbody") == "Status report"
    assert _title("> see [the docs](https://x.io)") == "see the docs"
    assert _title("x" * 50) == "x" * 29 + "…"
    assert _title("\n\n") == "Reply"
