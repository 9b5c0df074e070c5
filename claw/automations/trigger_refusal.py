"""`Refused`: why a trigger's POST (a signed webhook, a Gmail push) is turned away, with the HTTP status to
answer. Raised by the checks in `ingress` and `gmail_push`; the route turns it into that response."""

from __future__ import annotations

from claw.errors import ClawError


class Refused(ClawError):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason
