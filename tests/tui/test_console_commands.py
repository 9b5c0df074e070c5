"""/export, /model, /help, gateway commands and the completion popup."""

from __future__ import annotations

from claw.tui.widgets.conversation.notice import Notice
from tests.support.model_server import text, tool_call
from tests.tui.conftest import SIZE, type_and_send, wait_for


def _notices(app) -> list[str]:
    return [n.text for n in app.chat.conversation.query(Notice)]


async def test_export_writes_markdown_with_tool_calls(claw_env, console, tmp_path) -> None:
    claw_env.server.script(tool_call("read", {"path": "SOUL.md"}), text("Done reading."))
    app = console().app
    target = tmp_path / "out.md"
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "read your soul")
        await wait_for(pilot, lambda: app.chat.conversation.query("AssistantMessage") and not app.chat.runs)
        await type_and_send(pilot, f"/export {target}")
        await wait_for(pilot, lambda: target.exists(), what="the export")
        assert any(str(target) in n for n in _notices(app))
    exported = target.read_text()
    assert "## User" in exported and "read your soul" in exported
    assert "**Tool call** `read`" in exported and '"path": "SOUL.md"' in exported
    assert "You are Testy" in exported and "Done reading." in exported


async def test_model_switches_the_sessions_model(claw_env, console) -> None:
    claw_env.server.script(text("From the other model."))
    built = console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="the default model")
        await type_and_send(pilot, "/model other-model")
        await wait_for(pilot, lambda: app.chat.status.model == "other-model", what="the switch")
        assert "other-model" in app.chat.status.plain
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: claw_env.server.chat_requests, what="a request")
        assert claw_env.server.chat_requests[0].model == "other-model"
    row = await built.client.call("sessions.get", sessionKey="agent:main:main")
    assert row["modelOverride"] == "other-model"  # persisted in the session entry


async def test_gateway_commands_reply_in_the_conversation(claw_env, console) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "/status")
        found = await wait_for(pilot, lambda: [n for n in _notices(app) if n.startswith("Session ")], what="reply")
        assert "Model: test-model" in found[0]
        await type_and_send(pilot, "/help")
        helped = await wait_for(pilot, lambda: [n for n in _notices(app) if n.startswith("Commands:")])
        assert "/export [path]" in helped[0] and "Ctrl+O" in helped[0]
    assert claw_env.server.chat_requests == []  # commands never reach the model


async def test_completion_popup_offers_and_completes_commands(claw_env, console, monkeypatch) -> None:
    from claw.gateway.capability import Command

    async def ping(gw, call) -> str:
        return "pong"

    built = console()
    built.gateway.commands.add(Command("pingme", "answer pong", ping))  # a command a capability adds
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.prompt.catalog.get("status"), what="connected")
        prompt = app.chat.prompt
        await pilot.press("/", "e")
        assert prompt.popup.is_open
        assert [c.name for c in prompt.popup.commands] == ["edit", "export"]
        await pilot.press("down", "tab")
        assert prompt.input.text == "/export " and not prompt.popup.is_open
        prompt.input.set_text("")
        await pilot.press("/", "s", "t")
        assert {c.name for c in prompt.popup.commands} == {"status", "stop"}
        await pilot.press("escape")
        assert not prompt.popup.is_open and prompt.input.text == "/st"
        prompt.input.set_text("")
        await pilot.press("/", "p", "i")
        assert [c.name for c in prompt.popup.commands] == ["pingme"]
        await pilot.press("enter")  # no arguments: completes and sends
        await wait_for(pilot, lambda: "pong" in _notices(app), what="the gateway's reply")


async def test_new_starts_a_new_session_and_clears_the_conversation(claw_env, console) -> None:
    claw_env.server.script(text("First life."))
    built = console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "remember me")
        await wait_for(pilot, lambda: app.chat.conversation.query("AssistantMessage") and not app.chat.runs)
        before = await built.client.call("sessions.get", sessionKey="agent:main:main")
        await type_and_send(pilot, "/new")
        await wait_for(pilot, lambda: any(n.startswith("New session started") for n in _notices(app)))
        assert not app.chat.conversation.query("UserMessage") and not app.chat.conversation.query("AssistantMessage")
        after = await built.client.call("sessions.get", sessionKey="agent:main:main")
        assert after["sessionId"] != before["sessionId"]


async def test_session_command_switches_and_theme_toggles(claw_env, console) -> None:
    app = console(theme="light").app
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "claw-light" and not app.current_theme.dark
        await wait_for(pilot, lambda: app.chat.client is not None and app.chat.status.model)
        await type_and_send(pilot, "/theme")
        await wait_for(pilot, lambda: app.theme == "claw-dark", what="the dark theme")
        await type_and_send(pilot, "/session scratch")
        await wait_for(pilot, lambda: app.chat.session_key == "agent:main:scratch", what="the switch")
        assert "scratch" in app.chat.status.plain
