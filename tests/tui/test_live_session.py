"""Issue 15, point 7: the console follows its session live. A turn another client sends into the open
session appears as it happens (in-process and over WebSocket), the console's own turns are not shown
twice, the status bar says where the gateway runs, and a failing automation is a visible notice."""

from __future__ import annotations

from typing import Any

from claw.client.local import LocalClient
from claw.client.remote import RemoteClient
from claw.server.server import GatewayServer
from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.conversation.user_message import UserMessage
from tests.support.model_server import error, slow, text
from tests.tui.conftest import SIZE, TOKEN, type_and_send, wait_for


def _users(app: Any) -> list[str]:
    return [m.text for m in app.chat.conversation.query(UserMessage)]


def _replies(app: Any) -> list[str]:
    return [m.text for m in app.chat.conversation.query(AssistantMessage)]


def _notices(app: Any, kind: str = "info") -> list[str]:
    return [n.text for n in app.chat.conversation.query(Notice) if n.kind == kind]


async def _connected(pilot: Any, app: Any, gateway: Any) -> None:
    """Connected, and the console's session subscription taken in the gateway (over WebSocket, the server's)."""
    await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
    feeding = lambda: any(w.group == "session-feed" and w.is_running for w in app.chat.workers)  # noqa: E731
    await wait_for(pilot, feeding, what="the live session feed")
    await wait_for(pilot, lambda: gateway.bus.subscriber_count > 0, what="the session subscription")


async def _foreign_turn_shows(pilot: Any, app: Any, other: Any) -> None:
    """`other` sends into the console's session while it is open: the console shows it as it streams."""
    handle = await other.run("sent from another terminal", session_key="agent:main:main")
    assert handle.run_id is not None
    await wait_for(pilot, lambda: "sent from another terminal" in _users(app), what="the other client's message")
    await wait_for(pilot, lambda: "Streamed to everyone." in _replies(app) and not app.chat.runs, what="its reply")
    assert any(n.startswith("↘ sent from cli") for n in _notices(app))

    await type_and_send(pilot, "and mine")  # the console's own turn: once, not also as a foreign one
    await wait_for(pilot, lambda: "Mine." in _replies(app) and not app.chat.runs, what="the own reply")
    assert _users(app) == ["sent from another terminal", "and mine"]
    assert _replies(app) == ["Streamed to everyone.", "Mine."]
    assert sum(n.startswith("↘") for n in _notices(app)) == 1


async def test_a_turn_from_another_client_appears_in_the_open_console(claw_env, console) -> None:
    claw_env.server.script(slow("Streamed to everyone.", 0.02), text("Mine."))
    built = console()
    app = built.app
    other = LocalClient(built.gateway, channel="cli", owns_gateway=False)  # `claw agent` through this gateway
    async with app.run_test(size=SIZE) as pilot:
        await _connected(pilot, app, built.gateway)
        assert "in-process gateway" in app.chat.status.plain
        await _foreign_turn_shows(pilot, app, other)


async def test_over_websocket_too(claw_env, remote_console) -> None:
    claw_env.server.script(slow("Streamed to everyone.", 0.02), text("Mine."))
    built = await remote_console()
    app = built.app
    server = next(s for s in built.gateway.services if isinstance(s, GatewayServer))
    other = await RemoteClient.connect(server.url, TOKEN)  # `claw agent -m …` in another terminal
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _connected(pilot, app, built.gateway)
            assert f"attached to {server.url}" in app.chat.status.plain
            await _foreign_turn_shows(pilot, app, other)
    finally:
        await other.close()


async def test_a_failing_automation_is_a_visible_notice(claw_env, console) -> None:
    claw_env.server.script(error(400, "the model refused the job"), error(400, "the model refused again"))
    built = console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await _connected(pilot, app, built.gateway)
        isolated = await built.client.call("automations.add", every="1h", name="nightly", message="tidy up")
        await built.client.call("automations.run", id=isolated["id"])
        line = await wait_for(pilot, lambda: [n for n in _notices(app, "error") if "nightly" in n], what="notice")
        assert line[0].startswith('✗ automation "nightly" failed: model error:') and "refused the job" in line[0]
        assert any("nightly" in str(n.message) for n in app._notifications), "a toast says it too"

        main = await built.client.call(
            "automations.add", every="1h", name="digest", message="summarise the day", session="main"
        )
        await built.client.call("automations.run", id=main["id"])  # a run in the session on screen
        await wait_for(pilot, lambda: any("digest" in n for n in _notices(app)), what="the automation's turn")
        assert any(n == '⏰ automation "digest": summarise the day' for n in _notices(app))
        await wait_for(pilot, lambda: any("refused again" in n for n in _notices(app, "error")), what="its error")
        # The run's own view draws its error line first; the toast follows once the feed sees the run end.
        await wait_for(pilot, lambda: any("digest" in str(n.message) for n in app._notifications), what="the toast")


async def test_a_channel_message_routed_to_the_open_session_appears(claw_env, workspace) -> None:
    import asyncio

    from claw.channels.capability import ChannelsCapability
    from claw.compose import build_gateway
    from claw.config import load_config
    from claw.paths import Paths
    from claw.server.settings import ServerSettings
    from claw.tui.app import make_app
    from tests.channels.conftest import HOOK_SECRET, webhook_config
    from tests.channels.fakes import ReplyReceiver, post_signed

    receiver = ReplyReceiver()
    receiver.start()
    (claw_env.home / "config.toml").write_text(webhook_config(receiver.reply_url), encoding="utf-8")
    claw_env.server.script(slow("Answered on the webhook.", 0.02))
    paths = Paths.from_env()
    server = GatewayServer(ServerSettings(token=TOKEN, port=0))
    gateway = build_gateway(
        paths, load_config(paths), services=lambda gw: [*gw.capability(ChannelsCapability).services(), server]
    )
    await gateway.start()
    session = "agent:main:webhook:ci:c-1"  # each webhook conversation has its session: the console has it open
    app = make_app(LocalClient(gateway, channel="tui", owns_gateway=False), session_key=session)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _connected(pilot, app, gateway)
            payload = {"eventId": "e-1", "conversationId": "c-1", "senderId": "ann", "text": "hello from the webhook"}
            url = f"http://127.0.0.1:{server.port}/hooks/ci"
            status, _body = await asyncio.to_thread(post_signed, url, HOOK_SECRET, payload)
            assert status == 200
            await wait_for(pilot, lambda: "Answered on the webhook." in _replies(app) and not app.chat.runs,
                           what="the channel turn")  # fmt: skip
            assert any("hello from the webhook" in m for m in _users(app)), _users(app)
            assert any(n.startswith("↘ sent from webhook") for n in _notices(app)), _notices(app)
    finally:
        await gateway.close()
        receiver.stop()
