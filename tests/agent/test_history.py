"""History selection: newest first within budget, restored to time order, tool pairs never split."""

from __future__ import annotations

from claw.agent.history import MISSING_RESULT, HistoryView


def user(i: int, text: str) -> dict:
    return {"id": f"u{i}", "role": "user", "content": text}


def assistant(i: int, text: str, calls: list[str] | None = None) -> dict:
    entry = {"id": f"a{i}", "role": "assistant", "content": text}
    if calls:
        entry["toolCalls"] = [{"id": c, "name": "read", "arguments": "{}"} for c in calls]
    return entry


def tool(i: int, call_id: str, text: str) -> dict:
    return {"id": f"t{i}", "role": "tool", "toolCallId": call_id, "name": "read", "content": text}


def contents(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages]


def test_keeps_the_newest_turns_that_fit_in_time_order() -> None:
    entries = []
    for i in range(10):
        entries += [user(i, f"question {i} " + "x" * 400), assistant(i, f"answer {i} " + "y" * 400)]
    entries.append(user(99, "current"))
    view = HistoryView()
    view.update(entries)
    messages, tokens = view.select(budget_tokens=700)
    assert messages[-1]["content"] == "current"
    assert len(messages) < len(entries)
    firsts = [m["content"].split(" ")[1] for m in messages[:-1]]
    assert firsts == sorted(firsts, key=int)  # time order restored
    assert messages[-2]["content"].startswith("answer 9")
    assert tokens <= 700


def test_the_current_turn_is_kept_whole_even_over_budget() -> None:
    view = HistoryView()
    view.update([user(1, "old"), assistant(1, "old reply"), user(2, "z" * 10_000)])
    messages, _ = view.select(budget_tokens=10)
    assert contents(messages) == ["z" * 10_000]


def test_a_tool_call_is_never_separated_from_its_results() -> None:
    entries = [
        user(1, "do it"),
        assistant(1, "", calls=["c1", "c2"]),
        tool(1, "c1", "r" * 2000),
        tool(2, "c2", "s" * 2000),
        assistant(2, "done"),
        user(2, "next"),
    ]
    view = HistoryView()
    view.update(entries)
    for budget in range(0, 2500, 50):
        messages, _ = view.select(budget)
        roles = [m["role"] for m in messages]
        if "tool" in roles:
            call_index = next(i for i, m in enumerate(messages) if m.get("tool_calls"))
            assert roles[call_index + 1 : call_index + 3] == ["tool", "tool"]
        assert roles[0] != "tool"  # never an orphan result first


def test_incremental_updates_match_a_fresh_view() -> None:
    entries = [user(1, "a"), assistant(1, "", calls=["c1"])]
    view = HistoryView()
    view.update(entries)
    partial, _ = view.select(10_000)
    assert partial[-1] == {"role": "tool", "tool_call_id": "c1", "content": MISSING_RESULT}
    entries += [tool(1, "c1", "result"), assistant(2, "final"), user(2, "b")]
    view.update(entries)
    fresh = HistoryView()
    fresh.update(entries)
    assert view.select(10_000) == fresh.select(10_000)
    assert MISSING_RESULT not in str(view.select(10_000)[0])


def test_compaction_summary_stands_in_for_older_turns() -> None:
    entries = [user(1, "one"), assistant(1, "r1"), user(2, "two"), assistant(2, "r2")]
    entries.append({"id": "k1", "type": "compaction", "summary": "talked about one", "firstKeptId": "u2"})
    entries.append(user(3, "three"))
    view = HistoryView()
    view.update(entries)
    messages, _ = view.select(10_000)
    assert contents(messages)[0].endswith("talked about one")
    assert contents(messages)[1:] == ["two", "r2", "three"]
