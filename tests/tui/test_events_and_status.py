"""The run-events pane's timeline (lifecycle, tools, failover, timings) and the status bar's counters."""

from __future__ import annotations

from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.events.events_pane import EventsPane
from tests.gateway.conftest import write_config
from tests.support.model_server import Usage, error, text, tool_call
from tests.tui.conftest import SIZE, type_and_send, wait_for


async def test_events_pane_shows_the_timeline_with_failover(claw_env, console) -> None:
    write_config(claw_env.home, '[agents.defaults.model]\nprimary = "test-model"\nfallbacks = ["backup-model"]\n')
    claw_env.server.script(error(500, "upstream broke"), tool_call("read", {"path": "SOUL.md"}), text("Fine."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        pane = app.chat.query_one(EventsPane)
        assert not pane.display
        await pilot.press("ctrl+t")
        assert pane.display
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: any(" end " in line for line in pane.lines_written), what="the end event")
        labels = [label for _, label, _ in pane.entries]
        assert labels == ["accepted", "start", "failover", "tool start", "tool result", "assistant", "end"]
        failover = pane.lines_written[2]
        assert "test-model → backup-model" in failover and "upstream broke" in failover
        since = [seconds for seconds, _, _ in pane.entries]
        assert since[0] == 0 and since == sorted(since)  # time since the run was accepted
        assert "+" in pane.lines_written[-1] and "tokens in" in pane.lines_written[-1]
        assert pane.entries[4][2] == "✓ read"
        await wait_for(pilot, lambda: not app.chat.runs)
        assert app.chat.status.model == "backup-model"
        warnings = [n.text for n in app.chat.conversation.query(Notice) if n.kind == "warning"]
        assert warnings and "trying backup-model" in warnings[0]


async def test_status_bar_counts_tokens_and_context(claw_env, console) -> None:
    write_config(claw_env.home, "[agents.defaults]\ncontextTokens = 10000\n")
    claw_env.server.script(text("Counted.", usage=Usage(2000, 100)))
    built = console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        status = app.chat.status
        await wait_for(pilot, lambda: status.model == "test-model", what="connected")
        assert status.tokens_in == 0
        await type_and_send(pilot, "count me")
        await wait_for(pilot, lambda: status.tokens_in == 2000, what="the counters")
        assert status.tokens_out == 100
        assert "↑2.0k ↓100" in status.plain
        report = await built.client.call("sessions.context", sessionKey="agent:main:main")
        assert report["window"] == 10000  # the gauge is /context's total of this window (test_context_gauge.py)
        pct = 100 * report["total"] / report["window"]
        await wait_for(pilot, lambda: status.context_pct == pct, what="the gauge")
        assert f"ctx {pct:.1f}%" in status.plain
        assert "idle" in status.plain and "main" in status.plain
