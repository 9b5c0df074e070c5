"""Error codes on the wire, and the mapping between them and the `ClawError` tree.

The server turns an exception into `{"code", "message", "details"}`; `RemoteClient` turns that
back into the same kind of `ClawError`, so a caller sees the same exception (and the
CLI the same exit code) whichever transport it uses.

The codes are OpenClaw's (protocol 4): a method's error that the caller caused — bad parameters, an
unknown method, a session or run that does not exist, a config that does not allow it — is
`INVALID_REQUEST`, as OpenClaw's own gateway answers (`unknown session: …`, `unknown method: …`);
`details.code` (`NOT_FOUND`, `CONFIG_ERROR`, OpenClaw's place for a structured reason) keeps what claw's
clients need to raise the same exception (`details_for`). `NOT_FOUND` and `CONFIG_ERROR` as codes are
understood too (`code_for` still sends them: see there).
"""

from __future__ import annotations

from claw.errors import ClawError, ConfigError, GatewayUnavailable, NotFoundError, UsageError

INVALID_REQUEST = "INVALID_REQUEST"
"""The frame or its params are malformed, or the request cannot be done as asked."""
UNKNOWN_METHOD = INVALID_REQUEST
"""OpenClaw has no code of its own for a method the gateway does not serve: `INVALID_REQUEST`."""
UNAUTHORIZED = "UNAUTHORIZED"
RATE_LIMITED = "RATE_LIMITED"
PROTOCOL_MISMATCH = "PROTOCOL_MISMATCH"
NOT_FOUND = "NOT_FOUND"
CONFIG = "CONFIG_ERROR"
UNAVAILABLE = "UNAVAILABLE"
"""The gateway cannot serve this now (shutting down, too many requests in flight)."""
FAILED = "FAILED"
"""The request was valid but failed for a reason the message explains."""
INTERNAL = "INTERNAL"
"""A bug in the gateway; the details are in its log, not on the wire."""


class RemoteCallError(ClawError):
    """A gateway error with a code that has no more specific `ClawError` class."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def code_for(exc: ClawError) -> str:
    # NOT_FOUND and CONFIG_ERROR stay until the connection sends `details_for(exc)` with the code (a
    # claw client needs `details.code` to tell them from a usage error); then both become
    # INVALID_REQUEST, as OpenClaw's are.
    if isinstance(exc, NotFoundError):
        return NOT_FOUND
    if isinstance(exc, ConfigError):
        return CONFIG
    if isinstance(exc, UsageError):
        return INVALID_REQUEST
    if isinstance(exc, GatewayUnavailable):
        return UNAVAILABLE
    return FAILED


def details_for(exc: ClawError) -> dict[str, str]:
    """The error's `details`: which of claw's `INVALID_REQUEST`s it is, when it is not a plain usage error."""
    if isinstance(exc, NotFoundError):
        return {"code": NOT_FOUND}
    if isinstance(exc, ConfigError):
        return {"code": CONFIG}
    return {}


def error_for(code: str, message: str, details: object = None) -> ClawError:
    """The `ClawError` a client raises for an error response (`details` as the error frame carried it)."""
    reason = details.get("code") if isinstance(details, dict) else None
    if code == NOT_FOUND or (code == INVALID_REQUEST and reason == NOT_FOUND):
        return NotFoundError(message)
    if code == CONFIG or (code == INVALID_REQUEST and reason == CONFIG):
        return ConfigError(message)
    if code == INVALID_REQUEST:
        return UsageError(message)
    if code == UNAVAILABLE:
        return GatewayUnavailable(message)
    return RemoteCallError(code, message)
