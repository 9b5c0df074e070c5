"""Binding precedence: most specific match first, listed order among equals, the default agent last."""

from __future__ import annotations

import pytest

from claw.config import Binding
from claw.gateway.routing import explain, route
from claw.vocab.msg_context import MsgContext

BINDINGS = (
    Binding(agent_id="chan", channel="telegram"),
    Binding(agent_id="acct", channel="telegram", account_id="work-bot"),
    Binding(agent_id="guild", channel="discord", guild_id="g1"),
    Binding(agent_id="group", channel="telegram", group_id="-100"),
    Binding(agent_id="peer", channel="telegram", peer_id="42"),
    Binding(agent_id="chan-again", channel="telegram"),
)


@pytest.mark.parametrize(
    ("ctx", "agent"),
    [
        (MsgContext(body="", channel="telegram", peer_id="42"), "peer"),
        (MsgContext(body="", channel="telegram", peer_id="42", account_id="work-bot"), "peer"),
        (MsgContext(body="", channel="telegram", peer_id="7", account_id="work-bot"), "acct"),
        (MsgContext(body="", channel="telegram", peer_id="7", chat_type="group", group_id="-100"), "group"),
        (MsgContext(body="", channel="telegram", peer_id="7"), "chan"),  # first of two equals
        (MsgContext(body="", channel="Telegram", peer_id="7"), "chan"),  # case-insensitive
        (MsgContext(body="", channel="discord", peer_id="7", guild_id="g1"), "guild"),
        (MsgContext(body="", channel="discord", peer_id="7", guild_id="g2"), "main"),
        (MsgContext(body="", channel="slack", peer_id="42"), "main"),
    ],
)
def test_precedence(ctx: MsgContext, agent: str) -> None:
    assert route(ctx, BINDINGS) == agent


def test_explain_names_the_reason_for_each_binding() -> None:
    verdicts = explain(MsgContext(body="", channel="telegram", peer_id="7"), BINDINGS)
    assert verdicts[0].binding.agent_id == "chan" and verdicts[0].matched
    misses = {v.binding.agent_id: v.reason for v in verdicts if not v.matched}
    assert misses["peer"] == "peer is '7', binding wants '42'"
    assert misses["guild"] == "channel is 'telegram', binding wants 'discord'"
