"""The bundled session-memory hook: /new writes memory/YYYY-MM-DD-<slug>.md, by the model or extractively."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from claw.gateway.gateway import Gateway
from tests.hooks.conftest import local, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import error, hang, text

ENABLED = "[hooks.entries.session-memory]\nenabled = true\n"
QUESTION = "Let's plan the database migration to Postgres 16. What goes first?"
ANSWER = "Move the orders table first. Then the invoices."


async def _one_turn(gateway: Gateway) -> None:
    client = local(gateway)
    handle = await client.run(QUESTION)
    assert handle.run_id is not None
    events = [e async for e in client.events(handle.run_id)]
    assert events[-1].data["phase"] == "end"


def _note(workspace: Path, slug: str) -> Path:
    return workspace / "memory" / f"{datetime.now():%Y-%m-%d}-{slug}.md"


async def test_new_saves_a_model_summary(
    claw_env: ClawEnv, workspace: Path, make_gateway: Callable[[], Gateway]
) -> None:
    write_config(claw_env.home, ENABLED)
    summary = "Title: Postgres migration plan\n\n- Orders table moves first\n- Open: when to move invoices"
    claw_env.server.script(text(ANSWER), text(summary))
    gateway = make_gateway()
    await _one_turn(gateway)
    reply = await local(gateway).run("/new")

    note = _note(workspace, "postgres-migration-plan")
    assert reply.reply is not None and f"Saved a summary of the previous session to memory/{note.name}." in reply.reply
    written = note.read_text(encoding="utf-8")
    assert written.startswith("# Postgres migration plan\n")
    assert "- Orders table moves first\n- Open: when to move invoices" in written
    assert "- Summary: model test-model" in written and "- Ended with: /new" in written
    asked = claw_env.server.chat_requests[-1].messages
    assert f"[user] {QUESTION}" in asked[-1]["content"] and f"[assistant] {ANSWER}" in asked[-1]["content"]

    # A second /reset of a session with the same topic never overwrites the first note.
    claw_env.server.script(text(ANSWER), text(summary))
    await _one_turn(gateway)
    again = await local(gateway).run("/reset")
    assert again.reply is not None and f"{note.stem}-2.md" in again.reply
    assert "- Ended with: /reset" in note.with_name(f"{note.stem}-2.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("failure", ["error", "hang"])
async def test_a_failing_model_falls_back_to_an_extractive_summary(
    claw_env: ClawEnv, workspace: Path, make_gateway: Callable[[], Gateway], failure: str
) -> None:
    write_config(claw_env.home, ENABLED + "[hooks]\ntimeoutSeconds = 3\n")
    claw_env.server.script(text(ANSWER), error(503, "overloaded") if failure == "error" else hang())
    gateway = make_gateway()
    await _one_turn(gateway)
    reply = await local(gateway).run("/new")

    note = _note(workspace, "let-s-plan-the-database-migration")
    assert reply.reply is not None and note.name in reply.reply
    written = note.read_text(encoding="utf-8")
    assert written.startswith("# Let's plan the database migration\n")
    assert "- Summary: extractive (the model call failed" in written
    assert "- user: Let's plan the database migration to Postgres 16.\n- assistant: Move the orders table first." in (
        written
    )


async def test_without_a_model_the_summary_is_extractive(
    claw_env: ClawEnv, workspace: Path, make_gateway: Callable[[], Gateway], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(claw_env.home, ENABLED)
    claw_env.server.script(text(ANSWER))
    first = make_gateway()
    await _one_turn(first)
    await first.close()
    monkeypatch.delenv("CLAW_MODEL")
    requests = len(claw_env.server.chat_requests)

    reply = await local(make_gateway()).run("/new")
    note = _note(workspace, "let-s-plan-the-database-migration")
    assert reply.reply is not None and note.name in reply.reply
    assert "- Summary: extractive (no model configured)" in note.read_text(encoding="utf-8")
    assert len(claw_env.server.chat_requests) == requests


async def test_nothing_is_written_for_an_empty_session(
    claw_env: ClawEnv, workspace: Path, make_gateway: Callable[[], Gateway]
) -> None:
    write_config(claw_env.home, ENABLED)
    reply = await local(make_gateway()).run("/new")
    assert reply.reply is not None and "Saved" not in reply.reply
    assert not (workspace / "memory").exists()
    assert claw_env.server.chat_requests == []
