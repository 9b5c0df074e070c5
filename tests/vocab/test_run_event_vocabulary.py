"""The run-event vocabulary is declared once (claw/vocab/run_event.py), docs/cli.md documents exactly it,
and what goes on the wire is what clients have always read."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from claw.vocab import run_event
from claw.vocab.run_event import Phase, RunEvent, State, Stream, ToolPhase

REPO = Path(__file__).resolve().parents[2]

# Every constructor, with the data it must put on the wire (keys in this order).
SAMPLES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (run_event.accepted("main"), {"phase": "accepted", "agentId": "main"}),
    (
        run_event.budget_warning("agent main", "dailyCost", "2026-12-01", "m"),
        {"phase": "budget", "budget": "agent main", "limit": "dailyCost", "period": "2026-12-01", "message": "m"},
    ),
    (
        run_event.spawned("p1", "agent:main:main", 1, None, "look"),
        {
            "phase": "spawned",
            "parentRunId": "p1",
            "parentSessionKey": "agent:main:main",
            "depth": 1,
            "label": None,
            "task": "look",
        },
    ),
    (run_event.started("m/x", "s1", "main"), {"phase": "start", "model": "m/x", "sessionId": "s1", "agentId": "main"}),
    (run_event.steered("r2", "and this"), {"phase": "steered", "runId": "r2", "text": "and this"}),
    (run_event.failover("a/x", "b/y", "429"), {"phase": "failover", "from": "a/x", "to": "b/y", "reason": "429"}),
    (run_event.memory_flush_started(9), {"phase": "memory_flush", "state": "start", "tokens": 9}),
    (run_event.memory_flush_ended(None, "x"), {"phase": "memory_flush", "state": "end", "wrote": None, "error": "x"}),
    (
        run_event.compaction_started("overflow", 90),
        {"phase": "compaction", "state": "start", "reason": "overflow", "tokensBefore": 90},
    ),
    (
        run_event.compaction_ended({"tokensBefore": 90, "tokensAfter": 30}),
        {"phase": "compaction", "state": "end", "tokensBefore": 90, "tokensAfter": 30},
    ),
    (
        run_event.compaction_failed("manual", "no"),
        {"phase": "compaction", "state": "error", "reason": "manual", "message": "no"},
    ),
    (
        run_event.subagent_spawned("c1", "agent:main:subagent:u"),
        {"phase": "subagent", "state": "spawned", "childRunId": "c1", "childSessionKey": "agent:main:subagent:u"},
    ),
    (
        run_event.truncation_warning("ollama/q", 2048, 9000, 32000, "m"),
        {
            "phase": "warning",
            "kind": "truncation",
            "model": "ollama/q",
            "reportedTokens": 2048,
            "estimatedTokens": 9000,
            "window": 32000,
            "message": "m",
        },
    ),
    (run_event.waiting("m"), {"phase": "warning", "kind": "waiting", "message": "m"}),
    (run_event.end("hi", {"input": 1}), {"phase": "end", "text": "hi", "usage": {"input": 1}}),
    (run_event.end("", {}, steeredInto="r1"), {"phase": "end", "text": "", "usage": {}, "steeredInto": "r1"}),
    (run_event.error("boom", code="no_model"), {"phase": "error", "message": "boom", "code": "no_model"}),
    (run_event.aborted(reason="queue full"), {"phase": "aborted", "reason": "queue full"}),
    (run_event.delta("he"), {"delta": "he"}),
    (
        run_event.tool_started("c", "read", {"path": "x"}),
        {"phase": "start", "toolCallId": "c", "name": "read", "args": {"path": "x"}},
    ),
    (
        run_event.tool_result("c", "read", False, "ok"),
        {"phase": "result", "toolCallId": "c", "name": "read", "isError": False, "result": "ok"},
    ),
]


def _json_paragraph() -> str:
    """The CLI page of the docs (docs/cli.md) from its `--json` paragraph to the next heading."""
    readme = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    start = readme.index("`--json` prints one object per line")
    return readme[start : readme.index("\n#", start)]


def test_readme_lists_every_lifecycle_phase_in_order() -> None:
    listed = re.findall(r"^- `(\w+)`", _json_paragraph(), flags=re.MULTILINE)
    assert listed == [phase.value for phase in Phase]


def test_readme_names_the_tool_phases_and_the_streams() -> None:
    paragraph = _json_paragraph()
    assert re.findall(r'\{"phase": "(\w+)"', paragraph) == [phase.value for phase in ToolPhase]
    assert re.findall(r'"stream": ("\w+"(?:\|"\w+")*)', paragraph) == ["|".join(f'"{s}"' for s in Stream)]


def test_no_phase_is_spelled_outside_the_vocabulary() -> None:
    """Event data is built by run_event's constructors only: a `"phase": …` literal elsewhere in claw/ would be
    a phase no one declared."""
    literal = re.compile(r"""["']phase["']\s*:""")
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / "claw").rglob("*.py"))
        if path != REPO / "claw" / "vocab" / "run_event.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []


def test_constructors_put_the_same_strings_on_the_wire() -> None:
    for data, wire in SAMPLES:
        assert json.loads(json.dumps(data)) == wire
        assert list(data) == list(wire)
    emitted = {(data.get("phase"), data.get("state")) for data, _wire in SAMPLES}
    assert {phase for phase, _state in emitted} == {*Phase, *ToolPhase, None}  # None: an assistant delta
    assert {state for _phase, state in emitted} == {*State, None}


def test_an_event_serialises_and_reads_back_as_before() -> None:
    end = run_event.end("hi", {"input": 2, "output": 1})
    event = RunEvent("r1", 3, "agent:main:main", Stream.LIFECYCLE, end, 1796219822565, "main", "s-1")
    line = event.to_json()
    assert line == (  # OpenClaw's agent event payload: ts in ms, agentId and sessionId beside the key
        '{"runId": "r1", "seq": 3, "stream": "lifecycle", "ts": 1796219822565, "sessionKey": "agent:main:main", '
        '"data": {"phase": "end", "text": "hi", "usage": {"input": 2, "output": 1}}, "agentId": "main", '
        '"sessionId": "s-1"}'
    )
    back = RunEvent.from_wire(json.loads(line))  # plain strings, as a remote client reads them
    assert back == event and back.is_terminal and back.phase == Phase.END
    match back.phase:
        case Phase.END:
            pass
        case _:
            raise AssertionError(back.phase)


def test_cumulative_text_rides_beside_each_delta_and_restarts_after_a_tool() -> None:
    text = run_event.CumulativeText()

    def shown(seq: int, stream: Stream, data: dict[str, object]) -> dict[str, object]:
        return text.wire(RunEvent("r1", seq, "agent:main:main", stream, data))["data"]

    assert shown(1, Stream.ASSISTANT, run_event.delta("Hel")) == {"delta": "Hel", "text": "Hel"}
    assert shown(2, Stream.ASSISTANT, run_event.delta("lo")) == {"delta": "lo", "text": "Hello"}
    assert shown(3, Stream.TOOL, run_event.tool_started("c1", "exec", {})).get("text") is None
    assert shown(4, Stream.ASSISTANT, run_event.delta("Done")) == {"delta": "Done", "text": "Done"}
    long = "x" * run_event.CUMULATIVE_TEXT_MAX_CHARS
    assert shown(5, Stream.ASSISTANT, run_event.delta(long)) == {"delta": long}  # past the cap: deltas only
    assert shown(6, Stream.ASSISTANT, run_event.delta("y")) == {"delta": "y"}
    assert shown(7, Stream.LIFECYCLE, run_event.end("Done", {}))["phase"] == "end"
    assert shown(8, Stream.ASSISTANT, run_event.delta("again")) == {"delta": "again", "text": "again"}
