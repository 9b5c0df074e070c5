"""The history view after compaction entries (incremental = fresh), cut planning, and window lookup."""

from __future__ import annotations

from claw.agent.compaction import plan
from claw.agent.history import HistoryView
from claw.agent.windows import DEFAULT_CONTEXT_WINDOW, context_window, model_window
from claw.config import AgentSettings, ModelSettings


def _entries() -> list[dict]:
    return [
        {"id": "u1", "role": "user", "content": "one " * 50},
        {"id": "a1", "role": "assistant", "content": "reply one " * 50},
        {"id": "u2", "role": "user", "content": "two"},
        {
            "id": "a2",
            "role": "assistant",
            "content": "",
            "toolCalls": [{"id": "c1", "name": "read", "arguments": "{}"}],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "result"},
    ]


def test_entries_after_a_compaction_are_seen_the_same_incrementally_and_fresh() -> None:
    entries = _entries()
    view = HistoryView()
    view.update(entries)
    later = [
        {"id": "k1", "type": "compaction", "summary": "S1", "firstKeptId": "u2"},
        {"id": "a3", "role": "assistant", "content": "after the compaction"},
        {"id": "u3", "role": "user", "content": "three"},
        {"id": "k2", "type": "compaction", "summary": "S2", "firstKeptId": "a3"},
        {"id": "a4", "role": "assistant", "content": "four"},
    ]
    for entry in later:
        entries.append(entry)
        view.update(entries)
        fresh = HistoryView()
        fresh.update(entries)
        assert view.select(100_000) == fresh.select(100_000), entry["id"]
    messages, _ = view.select(100_000)
    assert [m["content"] for m in messages] == [
        "[Summary of the earlier conversation]\nS2",
        "after the compaction",
        "three",
        "four",
    ]


def test_plan_cuts_between_units_and_keeps_at_least_the_newest() -> None:
    view = HistoryView()
    view.update(_entries())
    units = view.units
    found = plan(units, keep_tokens=0)
    assert found is not None and found.first_kept_id == "a2"  # the call unit, with its result
    assert found.kept_tokens == units[-1].tokens
    assert plan(units, keep_tokens=10**6) is None  # everything fits: nothing to summarise
    wide = plan(units, keep_tokens=units[-1].tokens + units[-2].tokens)
    assert wide is not None and wide.first_kept_id == "u2"


def test_window_lookup_order() -> None:
    models = {"openai/big-local": ModelSettings(contextWindow=65_536), "tiny": ModelSettings(contextWindow=4096)}
    assert model_window("openai/big-local", models) == (65_536, "config")
    assert model_window("big-local", models) == (65_536, "config")
    assert model_window("ollama/tiny", models) == (4096, "config")
    assert model_window("openai/gpt-4o-mini-2024-07-18", {}) == (128_000, "known")
    assert model_window("gpt-4.1-mini", {}) == (1_047_576, "known")
    assert model_window("ollama/qwen3:8b", {}) == (DEFAULT_CONTEXT_WINDOW, "default")
    assert context_window("gpt-4o", AgentSettings(), {}) == 128_000
    assert context_window("gpt-4o", AgentSettings.model_validate({"contextTokens": 50_000}), {}) == 50_000
    assert context_window(None, AgentSettings(), {}) == DEFAULT_CONTEXT_WINDOW
