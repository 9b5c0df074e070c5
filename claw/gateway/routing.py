"""Bindings route an inbound message to an agent: most specific match first, default agent last."""

from __future__ import annotations

from claw.config import Binding
from claw.gateway.msg_context import MsgContext

DEFAULT_AGENT = "main"

_FIELDS = ("channel", "account_id", "peer_id", "group_id")


def _value(ctx: MsgContext, field: str) -> str | None:
    return getattr(ctx, field)


def binding_matches(binding: Binding, ctx: MsgContext) -> bool:
    for field in _FIELDS:
        wanted = getattr(binding, field)
        if wanted is not None and (_value(ctx, field) or "").lower() != wanted.lower():
            return False
    return True


def specificity(binding: Binding) -> int:
    """Peer beats group beats account beats channel; more fields beat fewer."""
    weights = {"peer_id": 8, "group_id": 4, "account_id": 2, "channel": 1}
    return sum(w for f, w in weights.items() if getattr(binding, f) is not None)


def route(ctx: MsgContext, bindings: tuple[Binding, ...], default_agent: str = DEFAULT_AGENT) -> str:
    """The agent id for `ctx`: the most specific matching binding, else the default agent."""
    best: Binding | None = None
    for binding in bindings:
        if binding_matches(binding, ctx) and (best is None or specificity(binding) > specificity(best)):
            best = binding
    return best.agent_id if best else default_agent
