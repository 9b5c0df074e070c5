"""MCP in the console, under `App.run_test()`: the status bar's `mcp up/configured`, in-process and attached;
an MCP call's card named by server and tool; its approval dialog titled as an MCP call, not as exec."""

from __future__ import annotations

from pathlib import Path

from claw.tui.screens.approval_screen import ApprovalScreen
from claw.tui.widgets.conversation.tool_card import ToolCard
from tests.gateway.conftest import write_config
from tests.mcp.conftest import stdio_server
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.tui.conftest import SIZE, console, first, remote_console, type_and_send, wait_for, workspace

__all__ = ["console", "remote_console", "workspace"]  # the console fixtures, used here by name


def _two_servers(claw_env: ClawEnv, tmp_path: Path, **basic: object) -> None:
    """`basic` (which starts) and `gone` (whose command does not exist: down)."""
    gone = stdio_server("gone", command=str(tmp_path / "no-such-server"))
    write_config(claw_env.home, stdio_server("basic", **basic) + gone)


async def test_status_bar_counts_the_servers_up(claw_env: ClawEnv, console, tmp_path: Path) -> None:
    _two_servers(claw_env, tmp_path)
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "mcp 1/2" in app.chat.status.plain, timeout=20, what="mcp 1/2")


async def test_status_bar_counts_the_servers_up_when_attached(
    claw_env: ClawEnv, remote_console, tmp_path: Path
) -> None:
    _two_servers(claw_env, tmp_path)
    app = (await remote_console()).app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "mcp 1/2" in app.chat.status.plain, timeout=20, what="mcp 1/2 (attached)")


async def test_no_mcp_entry_without_servers(claw_env: ClawEnv, console) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
        await wait_for(pilot, lambda: not any(w.group == "mcp" for w in app.chat.workers), what="the mcp.status call")
        assert "mcp" not in app.chat.status.plain


async def test_an_mcp_call_is_a_card_named_by_server_and_tool(claw_env: ClawEnv, console) -> None:
    write_config(claw_env.home, stdio_server("basic"))
    claw_env.server.script(tool_call("basic__echo", {"text": "hi"}), text("Echoed."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "echo hi")
        card = await wait_for(pilot, lambda: first(app.chat.conversation, ToolCard), what="the card")
        await wait_for(pilot, lambda: card.status == "ok", what="the call to end")
        header = str(card.query_one(".header").render())
        assert header.startswith("✓ basic · echo ") and "basic__echo" not in header
        assert "echo: hi" in card.result


async def test_an_mcp_approval_names_the_tool_not_exec(claw_env: ClawEnv, console) -> None:
    write_config(claw_env.home, stdio_server("basic", approval="always"))
    claw_env.server.script(tool_call("basic__add", {"a": 2, "b": 3}), text("Added."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "add them")
        modal = await wait_for(
            pilot,
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#title") and app.screen,
            what="the approval dialog",
        )
        title = str(modal.query_one("#title").render())
        assert title == "MCP tool basic · add wants to be called" and "exec" not in title
        assert str(modal.query_one("#command").render()) == "basic__add(a=2, b=3)"
        card = app.chat.conversation.query(ToolCard).last()
        await wait_for(
            pilot,
            lambda: "waiting for approval" in str(card.query_one(".header").render()),
            what="the card to say it waits",
        )
        await pilot.press("o")
        await wait_for(pilot, lambda: card.status == "ok", what="the approved call")
        assert "5" in card.result


async def test_an_mcp_approval_names_the_tool_when_attached(claw_env: ClawEnv, remote_console) -> None:
    write_config(claw_env.home, stdio_server("basic", approval="always"))
    claw_env.server.script(tool_call("basic__add", {"a": 2, "b": 3}), text("Added."))
    app = (await remote_console()).app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "add them")
        modal = await wait_for(
            pilot,
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#title") and app.screen,
            what="the approval dialog (over WebSocket)",
        )
        assert str(modal.query_one("#title").render()) == "MCP tool basic · add wants to be called"
        await pilot.press("d")
        card = app.chat.conversation.query(ToolCard).last()
        await wait_for(pilot, lambda: card.status == "error", what="the denied call")
        assert "denied by user" in card.result


async def test_a_call_to_a_server_still_starting_says_it_waits(claw_env: ClawEnv, console) -> None:
    """As `claw chat` runs it (claw/cli/chat.py): turns do not wait for servers; `basic` was listed before
    (`claw mcp test`), so its tools are offered at once and the call waits for it (4 s to start), saying so."""
    from claw.mcp.capability import McpCapability
    from claw.tui.widgets.conversation.notice import Notice
    from tests.support.processes import run_claw

    write_config(claw_env.home, stdio_server("basic", "slow", env={"MCP_TEST_SLOW": "4"}))
    assert run_claw(claw_env.env, "mcp", "test", "basic").returncode == 0
    claw_env.server.script(tool_call("basic__echo", {"text": "hi"}), text("Echoed."))
    built = console()
    built.gateway.capability(McpCapability).dont_wait_for_servers()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "echo hi")
        card = await wait_for(pilot, lambda: first(app.chat.conversation, ToolCard), what="the card")
        await wait_for(pilot, lambda: card.status == "ok", timeout=30, what="the call to end")
        notices = [n.text for n in app.chat.conversation.query(Notice)]
        assert any("waiting for MCP server basic" in n for n in notices), notices
        assert "echo: hi" in card.result
