"""The app opens before its gateway connection (first frame first), and a failed connection exits cleanly."""

from __future__ import annotations

import asyncio

from claw.errors import ConfigError
from claw.tui.app import make_app
from claw.tui.approvals import BrokerApprovals
from claw.tui.widgets.conversation.notice import Notice
from tests.support.processes import run_claw
from tests.tui.conftest import SIZE, type_and_send, wait_for


async def test_console_shows_before_the_connection_opens(claw_env, console) -> None:
    built = console()
    release = asyncio.Event()

    async def connect():
        await release.wait()
        return built.client, BrokerApprovals(built.gateway.approvals)

    app = make_app(connect=connect)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        assert app.client is None and "connecting" in app.chat.status.plain
        await type_and_send(pilot, "too early")
        await wait_for(pilot, lambda: app.chat.conversation.query(Notice), what="a notice")
        assert "still connecting" in app.chat.conversation.query(Notice).last().text
        release.set()
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
        assert app.client is built.client and app.chat.status.state == "idle"


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
