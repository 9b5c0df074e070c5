"""Issue 15, point 4 in the console: a failed turn is one error line while it happens, and the history
of the session, loaded again, still says the turn failed and why."""

from __future__ import annotations

import socket

import pytest

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.conversation.user_message import UserMessage
from tests.gateway.conftest import write_config
from tests.support.model_server import hang
from tests.tui.conftest import SIZE, type_and_send, wait_for


def _errors(app) -> list[str]:
    return [n.text for n in app.chat.conversation.query(Notice) if n.kind == "error"]


async def test_connection_error_is_one_line_then_stays_in_the_history(
    claw_env, console, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")  # nothing listens there
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
        for n in (1, 2):
            await type_and_send(pilot, "hi")
            await wait_for(pilot, lambda n=n: len(_errors(app)) == n and not app.chat.runs, what=f"error {n}")
        assert len(_errors(app)) == 2 and all(e.startswith("✗ model error:") for e in _errors(app)), _errors(app)
        assert not app.chat.conversation.query(AssistantMessage)  # no `✗ error` note besides the line

        app.chat.load_session(app.chat.session_key)  # what switching back to the session shows
        errors = await wait_for(
            pilot, lambda: "interrupted" in " ".join(_errors(app)) and _errors(app), what="the history"
        )
        assert all(e.startswith("✗ interrupted: the run failed (model error:") for e in errors), errors
        assert [m.text for m in app.chat.conversation.query(UserMessage)] == ["hi", "hi"]


async def test_partial_reply_then_failure(claw_env, console) -> None:
    write_config(claw_env.home, "[agents.defaults]\ntimeout_seconds = 1\n")
    claw_env.server.script(hang("Half an answer"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
        await type_and_send(pilot, "hi")
        await wait_for(pilot, lambda: _errors(app) and not app.chat.runs, what="the error")
        assert _errors(app) == ["✗ run timed out after 1 s"]
        streamed = app.chat.conversation.query(AssistantMessage).first()
        assert streamed.text == "Half an answer"
        assert not streamed.has_class("-noted")  # one error line: no `✗ error` note under the text as well

        app.chat.load_session(app.chat.session_key)
        await wait_for(pilot, lambda: "interrupted" in " ".join(_errors(app)), what="the history")
        assert _errors(app) == ["✗ interrupted: the run failed (run timed out after 1 s)"]
        assert app.chat.conversation.query(AssistantMessage).first().text == "Half an answer"
