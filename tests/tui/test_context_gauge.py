"""The status bar's context gauge is `/context`'s total against the window — the same number — and it is
there as soon as a session is on screen, not only after a turn."""

from __future__ import annotations

import re

from claw.tui.widgets.conversation.notice import Notice
from tests.gateway.conftest import write_config
from tests.support.model_server import Usage, text
from tests.support.turns import run_turn
from tests.tui.conftest import SIZE, type_and_send, wait_for

TOTAL = re.compile(r"^\s*total\s+[\d,]+\s+([\d.]+)%", re.MULTILINE)
GAUGE = re.compile(r"ctx ([\d.]+)%")


async def _context_total(pilot, app) -> str:
    """Send /context and return the percentage on its `total` line, as printed."""
    before = len(_context_replies(app))
    await type_and_send(pilot, "/context")
    replies = await wait_for(pilot, lambda: len(r := _context_replies(app)) > before and r, what="/context")
    found = TOTAL.search(replies[-1])
    assert found, replies[-1]
    return found.group(1)


def _context_replies(app) -> list[str]:
    return [n.text for n in app.chat.conversation.query(Notice) if n.text.startswith("Context for ")]


def _gauge(app) -> str | None:
    found = GAUGE.search(app.chat.status.plain)
    return found.group(1) if found else None


async def test_gauge_is_contexts_total_from_the_start_and_after_turns(claw_env, console) -> None:
    write_config(claw_env.home, "[agents.defaults]\ncontextTokens = 10000\n")
    long_reply = "A long answer. " * 400  # about 1,500 tokens of history: a gauge far from the usage's share
    claw_env.server.script(text(long_reply), text("Short.", usage=Usage(20, 2)), text("Other."))
    built = console()
    await run_turn(built.client, "agent:main:main", "tell me a lot")
    await run_turn(built.client, "agent:main:other", "a question elsewhere")
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
        shown = await wait_for(pilot, lambda: _gauge(app), what="the gauge, before any turn in this console")
        assert "ctx —" not in app.chat.status.plain
        assert shown == await _context_total(pilot, app)
        assert float(shown) > 10  # ~1,500 tokens of history and the prompt, against 10,000

        await type_and_send(pilot, "and briefly?")
        await wait_for(pilot, lambda: app.chat.status.tokens_out > 0 and not app.chat.runs, what="the turn")
        total = await _context_total(pilot, app)
        await wait_for(pilot, lambda: _gauge(app) == total, what="the gauge after the turn")

        await type_and_send(pilot, "/session other")
        await wait_for(pilot, lambda: app.chat.session_key == "agent:main:other", what="the switch")
        await wait_for(pilot, lambda: _gauge(app), what="the other session's gauge, at once")
        other = await _context_total(pilot, app)
        assert _gauge(app) == other and float(other) < float(total)  # its short history, not main's
