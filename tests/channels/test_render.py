"""Markdown → platform text, split at the platform's limit on paragraph and code boundaries."""

from __future__ import annotations

import re

from claw.channels.render import render_parts, to_telegram_html


def _balanced(html: str) -> bool:
    stack: list[str] = []
    for closing, name in re.findall(r"<(/?)(\w+)[^>]*>", html):
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


def test_telegram_html_escapes_everything_and_keeps_the_formatting() -> None:
    got = to_telegram_html("# Plan\n- **bold** and *it* and `a<b` & [docs](https://x.io/?a=1&b=2) ~~old~~ 3 < 4")
    assert got == (
        "<b>Plan</b>\n• <b>bold</b> and <i>it</i> and <code>a&lt;b</code> &amp; "
        '<a href="https://x.io/?a=1&amp;b=2">docs</a> <s>old</s> 3 &lt; 4'
    )
    assert to_telegram_html("```py\nif a < b:\n    pass\n```") == (
        '<pre><code class="language-py">if a &lt; b:\n    pass</code></pre>'
    )
    assert to_telegram_html("[x](javascript:alert(1))") == "[x](javascript:alert(1))"  # only safe schemes link


def _opened(html: str) -> list[str]:
    """The names of the tags `html` opens, in order."""
    return re.findall(r"<(\w+)[^>]*>", html)


def test_overlapping_markers_never_produce_unbalanced_tags() -> None:
    # Of two overlapping spans one is rendered and the other's markers stay text; a nested link stays nested.
    expected = {
        "*a **b* c**": ["b"],
        "~~a **b~~ c**": ["b"],
        "**a `b** c`": ["code"],  # a code span wins: nothing inside it is Markdown
        "_a *b_ c*": ["i"],
        "**[x](https://y) z**": ["b", "a"],
    }
    for text, tags in expected.items():
        got = to_telegram_html(text)
        assert _opened(got) == tags and _balanced(got), (text, got)


def test_short_replies_are_one_part_and_empty_ones_none() -> None:
    assert render_parts("hello", "markdown", 4096) == ["hello"]
    assert render_parts("  \n\n ", "telegram-html", 4096) == []


def test_paragraphs_are_packed_up_to_the_limit_and_cut_only_between_them() -> None:
    paragraphs = [f"P{i} " + "word " * 150 for i in range(12)]  # ~755 chars each
    parts = render_parts("\n\n".join(paragraphs), "markdown", 4096)
    assert all(len(p) <= 4096 for p in parts) and len(parts) == 3
    assert "\n\n".join(parts) == "\n\n".join(paragraphs).strip()


def test_a_long_code_block_is_split_between_lines_and_refenced() -> None:
    code = "\n".join(f"line {i} <tag> & more" for i in range(600))
    parts = render_parts(f"Intro.\n\n```python\n{code}\n```\n\nOutro.", "telegram-html", 4096)
    assert all(len(p) <= 4096 for p in parts) and len(parts) >= 4
    blocks = [p for p in parts if "<pre>" in p]
    assert all(p.count("<pre>") == p.count("</pre>") == 1 and _balanced(p) for p in blocks)
    lines = [line for p in blocks for line in re.sub(r"</?(pre|code)[^>]*>", "", p).split("\n") if "line" in line]
    assert lines == [f"line {i} &lt;tag&gt; &amp; more" for i in range(600)]  # every line once, in order
    assert parts[0].startswith("Intro.") and parts[-1].endswith("Outro.")


def test_markdown_code_blocks_keep_their_fences_when_split() -> None:
    code = "\n".join("x" * 50 for _ in range(100))
    parts = render_parts(f"```\n{code}\n```", "markdown", 1000)
    assert all(p.startswith("```\n") and p.endswith("\n```") and len(p) <= 1000 for p in parts)


def test_huge_lines_and_words_are_cut_anyway() -> None:
    parts = render_parts("word " * 3000, "markdown", 4096)
    assert all(len(p) <= 4096 for p in parts) and " ".join(parts).split() == ["word"] * 3000
    parts = render_parts("x" * 10_000, "telegram-html", 4096)
    assert [len(p) for p in parts] == [4096, 4096, 1808]
    parts = render_parts("<" * 5000, "telegram-html", 4096)  # escaping makes each char 4 long
    assert all(len(p) <= 4096 for p in parts) and "".join(parts) == "&lt;" * 5000
