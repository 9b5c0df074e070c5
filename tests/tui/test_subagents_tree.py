"""Subagents in the console: a tree under the turn that spawned them, live status, `x` to stop one,
and the report turns the gateway starts afterwards shown in the conversation."""

from __future__ import annotations

import re

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.conversation.tool_card import ToolCard
from claw.tui.widgets.conversation.user_message import UserMessage
from claw.tui.widgets.subagents.subagent_row import SubagentRow
from claw.tui.widgets.subagents.subagent_tree import SubagentTree
from tests.gateway.conftest import write_config
from tests.subagents.conftest import Roles, turn_message
from tests.support.model_server import RecordedRequest, Reply, hang, slow, text, tool_call, tool_calls
from tests.tui.conftest import SIZE, first, type_and_send, wait_for

WAIT = 40.0  # generous: the machine may be shared


def replies(app) -> list[str]:
    return [m.text for m in app.chat.conversation.query(AssistantMessage)]


def notices(app) -> list[str]:
    return [n.text for n in app.chat.conversation.query(Notice)]


def rows_by_name(tree: SubagentTree) -> dict[str, SubagentRow]:
    return {row.info.name: row for row in tree.rows.values() if row.info is not None}


def line(row: SubagentRow) -> str:
    return row.line().plain


async def test_two_children_run_finish_and_one_is_stopped_with_x(claw_env, console) -> None:
    def child(request: RecordedRequest) -> Reply:
        return hang() if turn_message(request).startswith("Slow") else slow("the quick job is done", 0.3)

    def report(request: RecordedRequest) -> Reply:
        return text("The slow helper was stopped." if "was stopped" in turn_message(request) else "Quick: done.")

    spawns = tool_calls(
        [
            ("sessions_spawn", {"task": "Quick: count to three.", "label": "quick"}),
            ("sessions_spawn", {"task": "Slow: count to a million.", "label": "slowpoke"}),
        ]
    )
    claw_env.server.default = roles = Roles(
        parent=[spawns, text("Two helpers started.")], child_default=child, announce_default=report
    )
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "delegate two jobs")
        tree = await wait_for(pilot, lambda: first(app.chat.conversation, SubagentTree), WAIT, "the tree")
        await wait_for(pilot, lambda: set(rows_by_name(tree)) == {"quick", "slowpoke"}, WAIT, "both rows named")
        quick, slowpoke = rows_by_name(tree)["quick"], rows_by_name(tree)["slowpoke"]
        await wait_for(
            pilot, lambda: quick.status_word == slowpoke.status_word == "running", WAIT, "both running at once"
        )
        assert "quick" in line(quick) and "main" in line(quick) and "running" in line(quick)
        assert "2 running" in str(tree.query_one(".header").render())

        await wait_for(pilot, lambda: quick.status_word == "done", WAIT, "the quick child done")
        assert "✓" in line(quick) and re.search(r"\d(\.\d)? s", line(quick))
        assert slowpoke.status_word == "running"
        # its report turn (started by the gateway, not the console) shows up in the conversation
        await wait_for(pilot, lambda: "Quick: done." in replies(app), WAIT, "the quick child's report")
        assert '↳ subagent "quick" finished: reporting' in notices(app)

        slowpoke.focus()
        await pilot.pause()
        assert "x" in app.screen.active_bindings  # shown in the footer while a row has focus
        await pilot.press("x")
        await wait_for(pilot, lambda: slowpoke.status_word == "stopped", WAIT, "the slow child stopped")
        assert "■" in line(slowpoke)
        await wait_for(pilot, lambda: "The slow helper was stopped." in replies(app), WAIT, "the stop reported")
        assert '↳ subagent "slowpoke" was stopped: reporting' in notices(app)
        await wait_for(pilot, lambda: not app.chat.runs, WAIT, "every turn to end")

        # the tree sits under the turn that spawned it: after the user's message, before the turn's reply
        kinds = list(app.chat.conversation.children)
        user = next(i for i, w in enumerate(kinds) if isinstance(w, UserMessage))
        reply = next(i for i, w in enumerate(kinds) if isinstance(w, AssistantMessage) and w.text.startswith("Two"))
        assert user < kinds.index(tree) < reply
        assert all(kinds.index(card) < kinds.index(tree) for card in app.chat.conversation.query(ToolCard))
        assert replies(app)[-2:] == ["Quick: done.", "The slow helper was stopped."]

    told = [turn_message(r) for r in roles.seen["announce"]]
    assert any(t.startswith('[System event] Subagent "slowpoke" was stopped before it finished.') for t in told)
    assert any(t.startswith('[System event] Subagent "quick" finished.') for t in told)


async def test_a_timeout_shows_as_timed_out(claw_env, console) -> None:
    claw_env.server.default = Roles(
        parent=[
            tool_call("sessions_spawn", {"task": "Think forever.", "label": "thinker", "timeoutSeconds": 1}),
            text("ok"),
        ],
        child_default=hang(),
        announce_default=text("It timed out."),
    )
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "slow job")
        row = await wait_for(pilot, lambda: first(app.chat.conversation, SubagentRow), WAIT, "a row")
        await wait_for(pilot, lambda: row.status_word == "timed out", WAIT, "timed out (from subagents.list)")
        assert "✗" in line(row) and "timed out after 1 s" in line(row)
        await wait_for(pilot, lambda: "It timed out." in replies(app), WAIT, "the report")


async def test_a_grandchild_is_listed_under_its_parent(claw_env, console) -> None:
    write_config(claw_env.home, "[agents.defaults.subagents]\nmaxDepth = 2\n")

    def child(request: RecordedRequest) -> Reply:
        depth = re.search(r"\(depth (\d)\)", str(request.messages[0]["content"]))
        if depth is not None and depth.group(1) == "2":
            return slow("worker result: 7", 0.2)
        if len([m for m in request.messages if m["role"] == "tool"]) == 0 and turn_message(request) == "Organise.":
            return tool_call("sessions_spawn", {"task": "Compute 7.", "label": "worker"})
        return text("boss relays")

    claw_env.server.default = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Organise.", "label": "boss"}), text("started")],
        child_default=child,
    )
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "go")
        tree = await wait_for(pilot, lambda: first(app.chat.conversation, SubagentTree), WAIT, "the tree")
        await wait_for(pilot, lambda: set(rows_by_name(tree)) == {"boss", "worker"}, WAIT, "boss and worker")
        boss, worker = rows_by_name(tree)["boss"], rows_by_name(tree)["worker"]
        assert (boss.level, worker.level) == (0, 1)
        assert line(worker).startswith("  └ ")
        rows = [w for w in tree.children if isinstance(w, SubagentRow)]
        assert rows.index(worker) == rows.index(boss) + 1
        await wait_for(pilot, lambda: worker.status_word == "done" and boss.status_word == "done", WAIT, "both done")
        assert len(app.chat.conversation.query(SubagentTree)) == 1  # the worker's report went to the boss


async def test_over_websocket_children_and_reports_are_followed(claw_env, remote_console) -> None:
    claw_env.server.default = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Fetch it.", "label": "fetcher"}), text("started")],
        child_default=slow("fetched", 0.2),
        announce_default=text("The fetcher fetched it."),
    )
    app = (await remote_console()).app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", WAIT, "connected")
        await type_and_send(pilot, "fetch something")
        row = await wait_for(pilot, lambda: first(app.chat.conversation, SubagentRow), WAIT, "a row")
        await wait_for(pilot, lambda: row.status_word == "done" and row.info.name == "fetcher", WAIT, "done")
        await wait_for(pilot, lambda: "The fetcher fetched it." in replies(app), WAIT, "the report")


async def test_children_still_running_are_shown_when_the_console_opens(claw_env, console) -> None:
    claw_env.server.default = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Wait a while.", "label": "waiter"}), text("started")],
        child_default=hang(),
        announce_default=text("The waiter was stopped."),
    )
    built = console()
    handle = await built.client.run("start a helper")
    async for _event in built.client.events(handle.run_id):
        pass
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        row = await wait_for(pilot, lambda: first(app.chat.conversation, SubagentRow), WAIT, "the running child")
        await wait_for(pilot, lambda: row.info.name == "waiter" and row.status_word == "running", WAIT, "running")
        row.focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: row.status_word == "stopped", WAIT, "stopped")
        await wait_for(pilot, lambda: "The waiter was stopped." in replies(app), WAIT, "the report")


async def test_completion_offers_subagents(claw_env, console) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.prompt.catalog.get("subagents"), what="the gateway's commands")
        await pilot.press("/", "s", "u")
        assert [c.name for c in app.chat.prompt.popup.commands] == ["subagents"]
