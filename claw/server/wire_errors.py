"""Error codes on the wire, and the mapping between them and the `ClawError` tree.

The server turns an exception into `{"code", "message"}`; `RemoteClient` turns that
back into the same kind of `ClawError`, so a caller sees the same exception (and the
CLI the same exit code) whichever transport it uses.
"""

from __future__ import annotations

from claw.errors import ClawError, ConfigError, GatewayUnavailable, NotFoundError, UsageError

INVALID_REQUEST = "INVALID_REQUEST"
"""The frame or its params are malformed, or the request cannot be done as asked."""
FORBIDDEN = "FORBIDDEN"
"""The connection lacks the scope the method needs (`details.missingScope`)."""
NOT_PAIRED = "NOT_PAIRED"
"""The device is not (or no longer) approved: `claw devices approve ID` on the gateway's host."""
NOT_FOUND = "NOT_FOUND"
CONFIG = "CONFIG_ERROR"
UNAVAILABLE = "UNAVAILABLE"
"""The gateway cannot serve this now (shutting down, too many requests in flight)."""
FAILED = "FAILED"
"""The request was valid but failed for a reason the message explains."""
INTERNAL = "INTERNAL"
"""A bug in the gateway; the details are in its log, not on the wire."""

# `details.code` of a refused `connect` (OpenClaw's ConnectErrorDetailCodes); the top-level code is
# INVALID_REQUEST (NOT_PAIRED for pairing), as in OpenClaw, so clients branch on these.
PROTOCOL_MISMATCH = "PROTOCOL_MISMATCH"
AUTH_TOKEN_MISSING = "AUTH_TOKEN_MISSING"
AUTH_TOKEN_MISMATCH = "AUTH_TOKEN_MISMATCH"
AUTH_RATE_LIMITED = "AUTH_RATE_LIMITED"
PAIRING_REQUIRED = "PAIRING_REQUIRED"
DEVICE_IDENTITY_REQUIRED = "DEVICE_IDENTITY_REQUIRED"
MISSING_SCOPE = "MISSING_SCOPE"


class RemoteCallError(ClawError):
    """A gateway error with a code that has no more specific `ClawError` class."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def code_for(exc: ClawError) -> str:
    if isinstance(exc, NotFoundError):
        return NOT_FOUND
    if isinstance(exc, ConfigError):
        return CONFIG
    if isinstance(exc, UsageError):
        return INVALID_REQUEST
    if isinstance(exc, GatewayUnavailable):
        return UNAVAILABLE
    return FAILED


def error_for(code: str, message: str) -> ClawError:
    """The `ClawError` a client raises for an error response."""
    if code == INVALID_REQUEST:
        return UsageError(message)
    if code == NOT_FOUND:
        return NotFoundError(message)
    if code == CONFIG:
        return ConfigError(message)
    if code == UNAVAILABLE:
        return GatewayUnavailable(message)
    return RemoteCallError(code, message)
