"""Old tool results are trimmed or cleared in the prompt only; the transcript keeps them whole."""

from __future__ import annotations

from claw.agent.history import HistoryView
from claw.agent.pruning import CLEARED, prune_units
from claw.config import PruningSettings
from tests.compaction.conftest import Model, config, seed, tool_exchange, transcript_entries, write_config
from tests.gateway.conftest import collect
from tests.support.fixtures import ClawEnv


def _units(results: int, chars: int) -> HistoryView:
    entries = []
    for n in range(results):
        for entry in tool_exchange(f"c{n}", result_chars=chars):
            entries.append({**entry, "id": f"{n}-{len(entries)}", "runId": f"run-{n}"})
    view = HistoryView()
    view.update(entries)
    return view


def _tool_contents(units) -> list[str]:
    return [m["content"] for u in units for m in u.messages if m["role"] == "tool"]


def test_below_the_soft_ratio_nothing_changes() -> None:
    view = _units(5, 1000)
    assert prune_units(view.units, 100_000, PruningSettings()) is view.units


def test_soft_trim_keeps_head_and_tail_of_old_results_only() -> None:
    view = _units(6, 10_000)  # ~60,000 chars of tool output
    settings = PruningSettings(hardClearRatio=1.0)
    pruned = prune_units(view.units, 40_000, settings)  # 160,000 chars of window: ratio ~0.38 > 0.3
    contents = _tool_contents(pruned)
    assert all(c.startswith("RESULT-START") for c in contents)
    trimmed = [c for c in contents if "[Tool result trimmed" in c]
    # The last three assistant messages are protected: "done reading", the last call, the "done" before it.
    assert len(trimmed) == 5
    assert all(len(c) < 4_000 for c in trimmed)
    assert _tool_contents(pruned)[-1] == _tool_contents(view.units)[-1]
    assert all("[Tool result trimmed" not in c for c in _tool_contents(view.units))  # the cache is untouched
    assert sum(u.tokens for u in pruned) < sum(u.tokens for u in view.units)


def test_a_pruned_unit_is_a_copy_that_keeps_its_run() -> None:
    view = _units(6, 10_000)
    pruned = prune_units(view.units, 40_000, PruningSettings(hardClearRatio=1.0))
    copies = [n for n, (before, after) in enumerate(zip(view.units, pruned, strict=True)) if before is not after]
    assert copies
    assert [u.run_id for u in pruned] == [u.run_id for u in view.units]


def test_hard_clear_replaces_the_oldest_results_until_under_the_ratio() -> None:
    view = _units(8, 30_000)  # 240,000 chars
    settings = PruningSettings(softTrimMaxChars=100_000, minPrunableChars=10_000)
    pruned = prune_units(view.units, 50_000, settings)  # 200,000 chars of window
    contents = _tool_contents(pruned)
    cleared = [i for i, c in enumerate(contents) if c == CLEARED]
    assert cleared and cleared == list(range(len(cleared)))  # oldest first
    assert len(cleared) < 7 and contents[-1] == _tool_contents(view.units)[-1]
    total = sum(len(m.get("content") or "") for u in pruned for m in u.messages)
    assert total < 0.5 * 200_000


async def test_the_model_sees_pruned_results_while_the_transcript_keeps_them(claw_env: ClawEnv, make_client) -> None:
    write_config(
        claw_env,
        config(30_000, reserve=1000, keep=20_000)
        + "[agents.defaults.contextPruning]\nsoftTrimRatio = 0.2\nhardClearRatio = 0.9\n",
    )
    history = [e for n in range(5) for e in tool_exchange(f"c{n}", result_chars=6000)]
    seed(claw_env, history)
    model = Model(window=30_000)
    claw_env.server.default = model
    client = make_client()
    await collect(client, (await client.run("next")).run_id)
    sent = [m["content"] for m in model.turns[0].messages if m["role"] == "tool"]
    assert len(sent) == 5 and sum("[Tool result trimmed" in c for c in sent) == 4
    assert sent[-1] == "RESULT-START " + "r" * 6000
    stored = [e["content"] for e in transcript_entries(claw_env) if e.get("role") == "tool"]
    assert all(len(c) == len("RESULT-START ") + 6000 for c in stored)
    assert not [e for e in transcript_entries(claw_env) if e.get("type") == "compaction"]
