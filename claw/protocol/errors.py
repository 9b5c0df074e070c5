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
    """OpenClaw's code for `exc`: an unknown session or run, a config that does not allow the call and a bad
    request are all `INVALID_REQUEST` there; `details_for` says which (claw's clients read it back)."""
    if isinstance(exc, NotFoundError | ConfigError | UsageError):
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


def details_for(exc: ClawError) -> dict[str, str]:
    """The error's `details`: which of claw's errors it is, in OpenClaw's place for a structured reason
    (`details.code`), for when its code is OpenClaw's `INVALID_REQUEST` (OpenClaw answers an unknown
    session or run, or a config that does not allow the call, with that code too). A connection sends
    it beside `code_for(exc)`; `error_from` reads it back, so a claw client still raises `NotFoundError`
    or `ConfigError` (and the CLI exits as it did) whichever code the gateway sent."""
    if isinstance(exc, NotFoundError):
        return {"code": NOT_FOUND}
    if isinstance(exc, ConfigError):
        return {"code": CONFIG}
    return {}


def error_from(err: object) -> ClawError:
    """The `ClawError` for an error frame's `error` object (`{code, message, details?}`)."""
    body = err if isinstance(err, dict) else {}
    code, message = str(body.get("code", FAILED)), str(body.get("message", "request failed"))
    details = body.get("details")
    reason = details.get("code") if isinstance(details, dict) else None
    if code == INVALID_REQUEST and reason == NOT_FOUND:
        return NotFoundError(message)
    if code == INVALID_REQUEST and reason == CONFIG:
        return ConfigError(message)
    return error_for(code, message)
