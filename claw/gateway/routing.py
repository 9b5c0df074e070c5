"""Bindings route an inbound message to an agent: most specific match first, default agent last.

Specificity: a peer binding beats a group (or guild/team) binding, which beats an account binding,
which beats a channel binding; among equals, the binding listed first wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from claw.config import Binding
from claw.vocab.msg_context import MsgContext

DEFAULT_AGENT = "main"

WEIGHTS = {"peer_id": 16, "group_id": 8, "guild_id": 4, "team_id": 4, "account_id": 2, "channel": 1}
_CHECK_ORDER = ("channel", "account_id", "guild_id", "team_id", "group_id", "peer_id")  # broadest first, for reasons


@dataclass(frozen=True, slots=True)
class BindingVerdict:
    """Why one binding does or does not apply to a message."""

    index: int
    binding: Binding
    matched: bool
    reason: str
    specificity: int


def specificity(binding: Binding) -> int:
    return sum(w for f, w in WEIGHTS.items() if getattr(binding, f) is not None)


def check_binding(index: int, binding: Binding, ctx: MsgContext) -> BindingVerdict:
    for field in _CHECK_ORDER:
        wanted = getattr(binding, field)
        have = getattr(ctx, field)
        if wanted is not None and (have or "").lower() != wanted.lower():
            reason = f"{field.removesuffix('_id')} is {have!r}, binding wants {wanted!r}"
            return BindingVerdict(index, binding, False, reason, specificity(binding))
    fields = [f"{f.removesuffix('_id')}={getattr(binding, f)}" for f in _CHECK_ORDER if getattr(binding, f) is not None]
    reason = "matches " + (", ".join(fields) if fields else "everything")
    return BindingVerdict(index, binding, True, reason, specificity(binding))


def explain(ctx: MsgContext, bindings: tuple[Binding, ...]) -> list[BindingVerdict]:
    """Every binding's verdict for `ctx`, the winner first, then the other matches, then the misses."""
    verdicts = [check_binding(i, b, ctx) for i, b in enumerate(bindings)]
    return sorted(verdicts, key=lambda v: (not v.matched, -v.specificity, v.index))


def route(ctx: MsgContext, bindings: tuple[Binding, ...], default_agent: str = DEFAULT_AGENT) -> str:
    """The agent id for `ctx`: the most specific matching binding, else the default agent."""
    verdicts = explain(ctx, bindings)
    return verdicts[0].binding.agent_id if verdicts and verdicts[0].matched else default_agent
