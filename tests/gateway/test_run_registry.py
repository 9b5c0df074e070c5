"""RunRegistry: active runs by session, finished ones kept (newest KEEP_FINISHED_RUNS) for late readers."""

from __future__ import annotations

from claw.gateway import runs as runs_module
from claw.gateway.runs import Run, RunOutcome, RunRegistry, new_run_id
from claw.vocab.msg_context import MsgContext
from claw.vocab.run_event import RunEvent


def _run(session_key: str) -> Run:
    return Run(new_run_id(), "main", session_key, MsgContext(body="hi"))


async def test_active_runs_are_listed_by_session_until_they_finish() -> None:
    registry = RunRegistry()
    a1, a2, b1 = _run("agent:main:a"), _run("agent:main:a"), _run("agent:main:b")
    for run in (a1, a2, b1):
        registry.add(run)
    assert registry.active("agent:main:a") == [a1, a2] and registry.active() == [a1, a2, b1]
    a1.finish(RunOutcome("ok"))
    assert registry.active("agent:main:a") == [a2]
    assert registry.get(a1.id) is a1 and registry.get(b1.id) is b1 and registry.get("nope") is None


async def test_only_the_newest_finished_runs_are_kept(monkeypatch) -> None:
    monkeypatch.setattr(runs_module, "KEEP_FINISHED_RUNS", 3)
    registry = RunRegistry()
    done = []
    for _ in range(5):
        run = _run("agent:main:a")
        run.events.append(RunEvent(run.id, 1, run.session_key, "lifecycle", {"phase": "start"}))
        registry.add(run)
        run.finish(RunOutcome("ok"))
        done.append(run)
    still = _run("agent:main:a")
    registry.add(still)
    assert [registry.get(r.id) for r in done] == [None, None, *done[2:]]
    assert done[0].events == [] and done[4].events  # a forgotten run lets go of its events
    assert registry.active() == [still] and registry.get(still.id) is still


def test_an_idempotency_key_becomes_the_run_id_only_when_safe_and_unused() -> None:
    assert new_run_id("k-1.abc:2") == "k-1.abc:2"
    assert new_run_id("k-1", taken=lambda key: key == "k-1") != "k-1"  # a reused key never aliases an old run
    for unsafe in ("", "has space", "x" * 129, "../etc", None):
        assert len(new_run_id(unsafe)) == 32
