"""`PlatformError`: a failed call to a chat platform's API, in the terms the outbox decides on."""

from __future__ import annotations

from claw.errors import ClawError


class PlatformError(ClawError):
    """A failed call. `code` is the platform's own error code (None: no answer), `status` the HTTP status;
    `sent` is False only when the request certainly never reached the platform; `retry_after` the seconds
    the platform asked to wait. A platform's subclass says which answers are its rate limits."""

    def __init__(self, what: str, description: str, *, code: str | int | None = None, status: int | None = None,
                 sent: bool = True, retry_after: float | None = None) -> None:  # fmt: skip
        super().__init__(f"{what}: {description}")
        self.description = description
        self.code = code
        self.status = status
        self.sent = sent
        self.retry_after = retry_after

    @property
    def rate_limited(self) -> bool:
        return self.status == 429
