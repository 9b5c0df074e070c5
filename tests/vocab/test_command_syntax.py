"""`/name args` is a command; anything else, including `//…`, is a message."""

from __future__ import annotations

import pytest

from claw.vocab.command_syntax import parse_command


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("/new", ("new", "")),
        ("  /STATUS  now please ", ("status", "now please")),
        ("/model: openai/gpt-4o", ("model", "openai/gpt-4o")),
        ("/daily-brief tomorrow", ("daily-brief", "tomorrow")),
        ("/skill_writer", ("skill_writer", "")),
        ("//not a command", None),
        ("/", None),
        ("/a.b", None),
        ("/usr/bin/foo is missing", None),
        ("/ lone slash", None),
        ("/status\nand a second line", ("status", "and a second line")),
        ("/bogus\tword", ("bogus", "word")),
        ("hello /new", None),
        ("", None),
    ],
)
def test_what_is_a_command(text: str, parsed: tuple[str, str] | None) -> None:
    assert parse_command(text) == parsed
