"""What an adapter may ask of the gateway side (`ChannelHost`), and the health it reports.

A poller hands its messages to `accept` together with the state that must move with them
(Telegram's next update offset): both commit in one transaction, so a crash can neither lose
a stored message's offset nor skip a message whose offset was saved.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from claw.channels.inbound import Inbound


@dataclass
class Health:
    """One account's health, as `claw channels status` shows it. Mutable, owned by its adapter."""

    state: str = "stopped"
    """stopped | starting | running | error | disabled"""
    detail: str | None = None
    last_poll_at: float | None = None
    last_inbound_at: float | None = None
    last_error: str | None = None
    last_error_at: float | None = None

    def ok(self, *, polled: bool = False) -> None:
        self.state = "running"
        if polled:
            self.last_poll_at = time.time()

    def error(self, message: str) -> None:
        self.state = "error"
        self.last_error = message
        self.last_error_at = time.time()

    def to_wire(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "detail": self.detail,
            "lastPollAt": self.last_poll_at,
            "lastInboundAt": self.last_inbound_at,
            "lastError": self.last_error,
            "lastErrorAt": self.last_error_at,
        }


class ChannelHost(Protocol):
    """The gateway side of the channels, as adapters see it."""

    async def accept(
        self, channel: str, account_id: str, inbound: Sequence[Inbound], state: Mapping[str, str] | None = None
    ) -> list[bool]:
        """Store `inbound` in the inbox and the account's `state` in one transaction; for each message,
        True if it was new, False for a duplicate. Processing starts after this returns."""
        ...

    async def read_state(self, channel: str, account_id: str, key: str) -> str | None: ...

    def health(self, channel: str, account_id: str) -> Health: ...
