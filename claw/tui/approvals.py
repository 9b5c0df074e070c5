"""Where exec approval questions come from, so the console can answer them with its modal.

The console asks the user with one coroutine, `ask(request) -> Decision`. An
`ApprovalSource` connects that coroutine to a gateway:

- `BrokerApprovals`: an in-process gateway's `ApprovalBroker` calls it directly.
- `RemoteApprovals`: a remote gateway announces questions as `exec.approval.requested`
  events and takes answers through `exec.approval.resolve`; `RemoteClient` does the wire
  part and calls this source's approver.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from claw.tools.base import ApprovalRequest, Decision

Ask = Callable[["ApprovalRequest"], Awaitable["Decision"]]


class ApprovalSource(Protocol):
    """Connects the console's `ask` to wherever exec questions are raised."""

    def attach(self, ask: Ask) -> None: ...

    def detach(self) -> None: ...


class BrokerApprovals:
    """Questions from an in-process gateway's broker (`gateway.approvals`)."""

    def __init__(self, broker: _Broker) -> None:
        self._broker = broker

    def attach(self, ask: Ask) -> None:
        self._broker.set_approver(ask)

    def detach(self) -> None:
        self._broker.set_approver(None)


class _Broker(Protocol):
    def set_approver(self, callback: Ask | None) -> None: ...


class NoApprovals:
    """No way to ask: exec falls back to its `askFallback` policy (deny by default)."""

    def attach(self, ask: Ask) -> None:
        pass

    def detach(self) -> None:
        pass


class RemoteApprovals:
    """Questions from a remote gateway: pass this object as `approver=` to `RemoteClient.connect`
    (which opts the connection into `exec.approval.requested` events and answers each with
    `exec.approval.resolve`); it forwards them to the attached `ask`. Unattached, it abstains."""

    def __init__(self) -> None:
        self._ask: Ask | None = None

    async def __call__(self, request: ApprovalRequest) -> Decision | None:
        ask = self._ask
        return None if ask is None else await ask(request)

    def attach(self, ask: Ask) -> None:
        self._ask = ask

    def detach(self) -> None:
        self._ask = None
