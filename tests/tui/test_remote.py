"""The same console over a `RemoteClient` (what `claw chat --url ws://…` runs): streaming, commands,
the editor and exec approvals all go over the WebSocket protocol."""

from __future__ import annotations

from textual.widgets import OptionList

from claw.client.openclaw_chat import is_claw_gateway
from claw.tui.screens.approval_screen import ApprovalScreen
from claw.tui.screens.editor_screen import EditorScreen
from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.conversation.tool_card import ToolCard
from tests.gateway.conftest import write_config
from tests.support.model_server import slow, text, tool_call
from tests.support.processes import run_claw
from tests.tui.conftest import SIZE, type_and_send, user_texts, wait_for


async def test_console_over_websocket(claw_env, remote_console, workspace) -> None:
    write_config(claw_env.home, '[agents.defaults.tools.exec]\nask = "always"\n')
    claw_env.server.script(
        slow("Streamed over the wire.", 0.02),
        tool_call("exec", {"command": "echo remote-approved"}),
        text("Ran it."),
    )
    built = await remote_console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
        await type_and_send(pilot, "hello over the wire")
        await wait_for(pilot, lambda: not app.chat.runs and app.chat.conversation.query(AssistantMessage))
        assert app.chat.conversation.query(AssistantMessage).first().text == "Streamed over the wire."

        await type_and_send(pilot, "run something")
        modal = await wait_for(
            pilot,
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#command") and app.screen,
            what="modal",
        )
        assert str(modal.query_one("#command").render()) == "echo remote-approved"
        await pilot.press("o")
        await wait_for(pilot, lambda: not app.chat.runs and app.chat.conversation.query(ToolCard), what="the run")
        card = app.chat.conversation.query(ToolCard).first()
        assert card.status == "ok" and "remote-approved" in card.result

        await type_and_send(pilot, "/model other-model")
        await wait_for(pilot, lambda: app.chat.status.model == "other-model", what="the model switch")

        await type_and_send(pilot, "/edit soul")
        editor = await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen, what="editor")
        await wait_for(pilot, lambda: editor.disk_text == "You are Testy, a careful assistant.\n", what="loaded")
        editor.editor.load_text("Edited remotely.\n")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "saved" in editor.status.plain, what="saved")
    assert (workspace / "SOUL.md").read_text() == "Edited remotely.\n"
    row = await built.client.call("sessions.get", sessionKey="agent:main:main")
    assert row["modelOverride"] == "other-model"


async def test_status_and_the_sessions_sidebar_over_websocket(claw_env, remote_console) -> None:
    # `/status` is the gateway's to answer, remote as in-process, never a message to the model; Ctrl+B lists
    # the gateway's sessions, and choosing one shows it.
    claw_env.server.script(text("Noted elsewhere."))
    built = await remote_console()
    assert is_claw_gateway(built.client.hello)  # so a command goes with `agent`, as in-process
    handle = await built.client.run("remember elsewhere", session_key="agent:main:elsewhere")
    assert [e async for e in built.client.events(handle.run_id)][-1].data["phase"] == "end"
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.ready and app.chat.status.model == "test-model", what="connected")
        await type_and_send(pilot, "/status")
        await wait_for(
            pilot, lambda: [n for n in _notices(app) if n.startswith("Session agent:main:main")], what="/status"
        )
        assert len(claw_env.server.chat_requests) == 1  # the turn in "elsewhere" only

        await pilot.press("ctrl+b")
        sidebar = app.chat.sidebar
        await wait_for(pilot, lambda: sidebar.display and sidebar.rows, what="the sessions listed")
        options = sidebar.query_one(OptionList)
        listed = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert sorted(listed) == ["agent:main:elsewhere", "agent:main:main"]
        options.focus()
        options.highlighted = listed.index("agent:main:elsewhere")
        await pilot.press("enter")
        await wait_for(pilot, lambda: user_texts(app) == ["remember elsewhere"], what="the other session shown")
        assert app.chat.session_key == "agent:main:elsewhere" and "elsewhere" in app.chat.status.plain


def _notices(app) -> list[str]:
    return [n.text for n in app.chat.conversation.query(Notice)]


def test_url_with_nothing_listening_is_one_line_error(claw_env) -> None:
    done = run_claw({**claw_env.env, "CLAW_GATEWAY_TOKEN": "x"}, "chat", "--url", "ws://127.0.0.1:9/")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claw: cannot connect to the gateway at ws://127.0.0.1:9/")
