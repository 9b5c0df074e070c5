"""A hook's model completion (the bundled session-memory hook's summary on /new) is its own source, `hook`;
the turn before it stays `chat`. (A command's hook runs outside any run, so its row names no session.)"""

from __future__ import annotations

from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text
from tests.usage.conftest import KEY, ledger_of, rows, turn, write_config


async def test_a_hooks_completion_is_recorded_as_source_hook(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, "[hooks.entries.session-memory]\nenabled = true\n")
    claw_env.server.script(text("Move the orders first.", usage=Usage(30, 5)),
                           text("Migration plan\n\n- orders first", usage=Usage(70, 9)))  # fmt: skip
    client = make_client()
    events = await turn(client, "Plan the database migration.")
    assert events[-1].data["phase"] == "end"
    reply = await client.run("/new")
    assert reply.reply is not None and "Saved a summary" in reply.reply, reply
    assert ledger_of(client).ledger.flush()
    found = [(r["source"], r["session_key"], r["input_tokens"], r["output_tokens"]) for r in rows(claw_env)]
    assert found == [("chat", KEY, 30, 5), ("hook", None, 70, 9)]
