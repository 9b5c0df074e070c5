"""The app opens before its gateway connection (first frame first), keeps what is typed before it is ready and
sends it then, and a failed connection exits cleanly."""

from __future__ import annotations

import asyncio

from claw.errors import ConfigError
from claw.tui.app import make_app
from claw.tui.approvals import BrokerApprovals
from claw.tui.typeahead import typed_text
from tests.support.model_server import text
from tests.support.processes import run_claw
from tests.tui.conftest import SIZE, screen_text, type_and_send, user_texts, wait_for


async def test_console_shows_before_the_connection_opens_and_keeps_what_is_typed(claw_env, console) -> None:
    claw_env.server.script(text("Answer one."), text("Answer two."))
    built = console()
    release = asyncio.Event()

    async def connect():
        await release.wait()
        return built.client, BrokerApprovals(built.gateway.approvals)

    app = make_app(connect=connect, typed_ahead="typed before the frame\nhalf a line")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert app.client is None and "connecting" in app.chat.status.plain
        assert "no model" not in app.chat.status.plain and "model …" in app.chat.status.plain  # not known yet
        assert app.chat.prompt.input.text == "half a line" and app.chat.focused is app.chat.prompt.input
        app.chat.prompt.input.set_text("")
        await type_and_send(pilot, "too early")
        queued = app.chat.prompt.queued
        assert queued.waiting == ["typed before the frame", "too early"] and "2 queued" in app.chat.status.plain
        assert "waiting to send: too early" in screen_text(app)
        release.set()
        await wait_for(pilot, lambda: len(user_texts(app)) == 2 and not app.chat.runs, what="both sent")
        assert user_texts(app) == ["typed before the frame", "too early"] and queued.count == 0
        assert [r.messages[-1]["content"] for r in claw_env.server.chat_requests] == user_texts(app)
        assert app.client is built.client and app.chat.status.state == "idle"


async def test_escape_takes_back_what_waits_for_the_connection(claw_env, console) -> None:
    built = console()
    release = asyncio.Event()

    async def connect():
        await release.wait()
        return built.client, BrokerApprovals(built.gateway.approvals)

    app = make_app(connect=connect)
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "never mind")
        assert "esc Abort" in screen_text(app)
        await pilot.press("escape")
        assert app.chat.prompt.queued.count == 0 and not app.chat.prompt.queued.query(".waiting")
        release.set()
        await wait_for(pilot, lambda: app.chat.ready, what="ready")
        await pilot.pause(0.3)
        assert user_texts(app) == [] and claw_env.server.chat_requests == []


def test_typed_text_is_what_a_terminal_queued_as_text() -> None:
    assert typed_text(b"caf\xc3\xa9\r\x1b[Aup\x1bOPkey\tx\x07\nnext") == "café\nupkeyx\nnext"


async def test_failed_connection_exits_with_the_error(claw_env) -> None:
    async def connect():
        raise ConfigError("no such agent")

    app = make_app(connect=connect)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.is_running, what="the app to exit")
    assert isinstance(app.connect_error, ConfigError) and app.return_code == 2


def test_claw_chat_with_an_unknown_agent_is_a_one_line_error(claw_env) -> None:
    done = run_claw(claw_env.env, "chat", "--agent", "nosuch")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.rstrip().endswith(
        "claw: unknown agent 'nosuch' (configured: main); add it under [agents.list.nosuch]"
    )
