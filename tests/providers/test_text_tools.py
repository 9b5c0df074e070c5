"""Tool calls written as text: every format, streamed in awkward splits, parses and never leaks a tag."""

from __future__ import annotations

import json

import pytest

from claw.providers.text_tools.calls import parse_markup
from claw.providers.text_tools.stream import TextStream

OFFERED = {"read": {"properties": {"path": {"type": "string"}}}, "exec": {"properties": {}}}
READ = ("read", {"path": "a.md"})

CASES = [
    ('Let me look.<tool_call>{"name":"read","arguments":{"path":"a.md"}}</tool_call>', "Let me look.", [READ]),
    ("<function=read>\n<parameter=path>\na.md\n</parameter>\n</function>", "", [READ]),
    ("<tool_call>\n<function=read>\n<parameter=path>\na.md\n</parameter>\n</function>\n</tool_call>", "", [READ]),
    ('[TOOL_CALLS][{"name":"read","arguments":{"path":"a.md"}}]', "", [READ]),
    ('[TOOL_CALLS]read[ARGS]{"path":"a.md"}', "", [READ]),
    ('<|python_tag|>{"name":"read","parameters":{"path":"a.md"}}<|eom_id|>', "", [READ]),
    ('[read(path="a.md"), exec(command="ls")]', "", [READ, ("exec", {"command": "ls"})]),
    ('{"name":"read","arguments":{"path":"a.md"}}', "", [READ]),
]


def _run(text: str, size: int) -> tuple[str, str, TextStream]:
    stream, reply, thinking = TextStream("auto"), [], []
    for at in range(0, len(text), size):
        shown, thought = stream.feed(text[at : at + size])
        reply.append(shown)
        thinking.append(thought)
    shown, thought = stream.finish()
    return "".join(reply) + shown, "".join(thinking) + thought, stream


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 1000])
@pytest.mark.parametrize(("text", "shown", "expected"), CASES)
def test_each_format_in_any_split_is_held_and_parsed(text: str, shown: str, expected: list, size: int) -> None:
    reply, _thinking, stream = _run(text, size)
    assert reply == shown
    parsed = parse_markup(stream.held, OFFERED)
    assert parsed is not None
    calls, _rest = parsed
    assert [(c.name, json.loads(c.arguments), c.error) for c in calls] == [(n, a, None) for n, a in expected]


@pytest.mark.parametrize("size", [1, 2, 4, 6])
def test_think_tags_split_mid_tag_go_to_thinking(size: int) -> None:
    reply, thinking, stream = _run("<think>a <b> c</think>\n\nThe answer [1] is < 2.", size)
    assert (reply, thinking, stream.held) == ("The answer [1] is < 2.", "a <b> c", "")


def test_text_that_only_looks_like_a_call_is_the_reply() -> None:
    assert _run("[a link](http://x) ok", 1)[0] == "[a link](http://x) ok"
    _reply, _thinking, stream = _run('{"foo": 1}', 2)
    assert parse_markup(stream.held, OFFERED) is None  # the caller releases it as text


def test_unknown_tools_and_bad_markup_become_errors() -> None:
    parsed = parse_markup('<tool_call>{"name":"nope","arguments":{}}</tool_call><tool_call>{bad</tool_call>', OFFERED)
    assert parsed is not None
    errors = [c.error for c in parsed[0]]
    assert errors[0] is not None and "nope" in errors[0]
    assert errors[1] is not None and "could not be parsed" in errors[1]
    pythonic = parse_markup("[exec(command=__import__('os').system('x'))]", OFFERED)
    assert pythonic is not None and pythonic[0][0].error is not None  # never evaluated
