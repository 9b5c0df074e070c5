"""A model chosen with /model (or `claw chat --model`) belongs to one session: stored with it, shown by the
status bar and /status alike after every switch, and used by every client of that session."""

from __future__ import annotations

from textual.command import CommandPalette

from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.conversation.user_message import UserMessage
from tests.support.model_server import text
from tests.support.session_index import read_index
from tests.support.turns import run_turn
from tests.tui.conftest import SIZE, type_and_send, wait_for
from tests.tui.palette import palette_hits

TOUR = "agent:main:tour"
SKILLTEST = "agent:main:skilltest"


def _notices(app) -> list[str]:
    return [n.text for n in app.chat.conversation.query(Notice)]


async def _status_reply(pilot, app) -> str:
    """Send /status and return its reply (the newest one)."""
    before = len([n for n in _notices(app) if n.startswith("Session ")])
    await type_and_send(pilot, "/status")
    replies = await wait_for(
        pilot, lambda: (r := [n for n in _notices(app) if n.startswith("Session ")]) and len(r) > before and r
    )
    return replies[-1]


def _turn_models(claw_env) -> list[str]:
    """The model of each request after the one that made the earlier skilltest turn."""
    return [request.model for request in claw_env.server.chat_requests[1:]]


def _overrides(claw_env) -> dict[str, str | None]:
    index = read_index(claw_env.home / "agents" / "main" / "sessions")
    return {key: entry.get("modelOverride") for key, entry in index.items()}


async def test_model_stays_with_its_session_across_a_switch(claw_env, console) -> None:
    claw_env.server.script(text("Skilltest answer."), text("Tour answer."), text("Other client's answer."))
    built = console(session_key="tour")
    await run_turn(built.client, SKILLTEST, "an earlier skilltest turn")  # so Ctrl+P can find it
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        status = app.chat.status
        await wait_for(pilot, lambda: status.model == "test-model", what="connected")
        await type_and_send(pilot, "/model other-model")
        await wait_for(pilot, lambda: status.model == "other-model", what="the switch")
        assert "Model: other-model" in await _status_reply(pilot, app)

        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the picker")
        await pilot.press(*"skilltest")
        await wait_for(pilot, lambda: palette_hits(app, "skilltest"), what="the picker's hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.chat.session_key == SKILLTEST and status.session_key == SKILLTEST)
        await wait_for(pilot, lambda: status.model == "test-model", what="skilltest's own model in the status bar")
        assert "other-model" not in status.plain
        assert "Model: test-model" in await _status_reply(pilot, app)

        await type_and_send(pilot, "hello skilltest")
        await wait_for(pilot, lambda: len(_turn_models(claw_env)) == 1 and not app.chat.runs, what="a turn")
        assert _turn_models(claw_env) == ["test-model"]  # not the other session's choice
        assert status.model == "test-model"

        await type_and_send(pilot, "/session tour")
        await wait_for(pilot, lambda: app.chat.session_key == TOUR and status.model == "other-model", what="back")
        assert "Model: other-model" in await _status_reply(pilot, app)
        await type_and_send(pilot, "hello tour")
        await wait_for(pilot, lambda: len(_turn_models(claw_env)) == 2 and not app.chat.runs, what="a turn")
        assert _turn_models(claw_env) == ["test-model", "other-model"]

    await run_turn(built.client, TOUR, "from another client")  # it names no model: the session's is used
    assert _turn_models(claw_env) == ["test-model", "other-model", "other-model"]
    overrides = _overrides(claw_env)
    assert overrides[TOUR] == "other-model" and not overrides.get(SKILLTEST)


async def test_model_without_arguments_shows_and_default_clears(claw_env, console) -> None:
    claw_env.server.script(text("Back on the agent's model."))
    built = console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        status = app.chat.status
        await wait_for(pilot, lambda: status.model == "test-model", what="connected")
        await type_and_send(pilot, "/model")
        shown = await wait_for(pilot, lambda: [n for n in _notices(app) if n.startswith("Model")], what="/model")
        assert "test-model" in shown[-1] and "the agent's" in shown[-1] and "/model default" in shown[-1]

        await type_and_send(pilot, "/model other-model")
        await wait_for(pilot, lambda: status.model == "other-model", what="the switch")
        await type_and_send(pilot, "/model")
        shown = await wait_for(pilot, lambda: (s := [n for n in _notices(app) if n.startswith("Model")])[2:] and s)
        assert "other-model" in shown[-1] and "this session" in shown[-1]

        await type_and_send(pilot, "/model default")
        await wait_for(pilot, lambda: status.model == "test-model", what="back to the agent's model")
        row = await built.client.call("sessions.get", sessionKey="agent:main:main")
        assert row["modelOverride"] is None
        assert "Model: test-model" in await _status_reply(pilot, app)
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: claw_env.server.chat_requests and not app.chat.runs, what="a turn")
        assert claw_env.server.chat_requests[-1].model == "test-model"


async def test_chat_model_option_sets_the_opened_sessions_model(claw_env, console) -> None:
    """`claw chat --model X`: the session the console opens gets X, as /model X would; others keep theirs."""
    claw_env.server.script(text("Opened with it."), text("Elsewhere."))
    built = console(session_key="tour", model="other-model")
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        status = app.chat.status
        await wait_for(pilot, lambda: status.model == "other-model", what="connected, on the chosen model")
        assert "Model: other-model" in await _status_reply(pilot, app)
        await type_and_send(pilot, "hi")
        await wait_for(pilot, lambda: app.chat.conversation.query(UserMessage) and not app.chat.runs, what="a turn")
        assert claw_env.server.chat_requests[-1].model == "other-model"

        await type_and_send(pilot, "/session skilltest")
        await wait_for(pilot, lambda: app.chat.session_key == SKILLTEST and status.model == "test-model")
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: len(claw_env.server.chat_requests) == 2 and not app.chat.runs, what="a turn")
        assert claw_env.server.chat_requests[-1].model == "test-model"
    row = await built.client.call("sessions.get", sessionKey=TOUR)
    assert row["modelOverride"] == "other-model"
