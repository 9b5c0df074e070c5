"""`ChannelsHost`: what the channels capability asks of the gateway (the adapters, in turn, see only
`ChannelHost`, the channel manager).

The settings (accounts, access rules) and gateway.db's location; `dispatch` for each stored message,
since a command's reply or a merged message is as much an answer as a run; and the run it started,
followed to its end (and its reply streamed) unless the gateway is closing. And the services the gateway
runs, among which `channels.status` finds its own `ChannelService` to say whether the channels are idle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from claw.gateway.host import Configured, RunWatch

if TYPE_CHECKING:
    from claw.gateway.dispatch_result import DispatchResult
    from claw.gateway.services import GatewayService
    from claw.vocab.msg_context import MsgContext


class ChannelsHost(Configured, RunWatch, Protocol):
    async def dispatch(self, ctx: MsgContext) -> DispatchResult:
        """Route, dedupe and answer the message: a run (on the `main` lane), a command's reply, a
        duplicate dropped, or the session queue's answer; `GatewayUnavailable` while shutting down."""
        ...

    @property
    def services(self) -> Sequence[GatewayService]:
        """The services the gateway runs: empty until `start`, and for a one-shot gateway, which runs none."""
        ...
