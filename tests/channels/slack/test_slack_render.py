"""Markdown → Slack mrkdwn, and replies split at Slack's limit between paragraphs or code lines."""

from __future__ import annotations

from claw.channels.render import render_parts, to_slack_mrkdwn


def test_styles_links_lists_and_headings_become_mrkdwn() -> None:
    got = to_slack_mrkdwn("# Plan\n- **bold** and *it* and _also_ ~~old~~\n* [docs](https://x.io/?a=1&b=2)\n1. one")
    assert got == "*Plan*\n• *bold* and _it_ and _also_ ~old~\n• <https://x.io/?a=1&amp;b=2|docs>\n1. one"
    assert to_slack_mrkdwn("__strong__ and a_snake_name") == "*strong* and a_snake_name"


def test_ampersand_and_angle_brackets_are_escaped_everywhere_code_included() -> None:
    assert to_slack_mrkdwn("3 < 4 & 5 > 2 `a<b>&c`") == "3 &lt; 4 &amp; 5 &gt; 2 `a&lt;b&gt;&amp;c`"
    assert to_slack_mrkdwn("```python\nif a < b and c & d:\n    pass\n```") == (
        "```\nif a &lt; b and c &amp; d:\n    pass\n```"
    )
    assert to_slack_mrkdwn("<!channel> <@U123>") == "&lt;!channel&gt; &lt;@U123&gt;"  # no pinging by the model
    assert to_slack_mrkdwn("[x](javascript:alert(1))") == "[x](javascript:alert(1))"  # only safe schemes link
    assert to_slack_mrkdwn("[a|b](https://x.io)") == "<https://x.io|a¦b>"  # `|` would end the label


def test_a_long_reply_is_split_between_paragraphs_and_code_lines() -> None:
    paragraphs = [f"Paragraph {i}: " + "words & more " * 40 for i in range(6)]  # ~700 characters each, rendered
    parts = render_parts("\n\n".join(paragraphs), "slack-mrkdwn", 2000)
    assert len(parts) == 3 and all(len(p) <= 2000 for p in parts)
    assert [p.count("Paragraph") for p in parts] == [2, 2, 2]  # cut between paragraphs, escaping counted
    code = "\n".join(f"line_{i} = {i} < {i + 1}" for i in range(300))
    parts = render_parts(f"```py\n{code}\n```", "slack-mrkdwn", 1000)
    assert len(parts) > 3 and all(len(p) <= 1000 for p in parts)
    assert all(p.startswith("```\n") and p.endswith("\n```") for p in parts)  # each part its own block
    lines = [line for p in parts for line in p.split("\n")[1:-1]]
    assert lines == [line.replace("<", "&lt;") for line in code.split("\n")]  # cut between lines, none lost
