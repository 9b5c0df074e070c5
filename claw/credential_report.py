"""How a capability's HTTP route tells the server's failed-auth limiter about a credential it refused.

An `HttpRoute` handler authenticates its own requests (a webhook's signature, Telegram's secret
header): the server cannot tell a forged signature from a missing one. So the handler, having
refused a credential that was *presented* and wrong, calls `report_bad_credential(request, value)`;
after the handler returns, the server's guard counts it under (client address, fingerprint of
`value`) and, when that address or pair is locked out, answers 429 with Retry-After instead of the
handler's own refusal. A request that carried no credential is not reported (it is never counted),
and one whose credential was right is never reported, so the limiter cannot refuse it.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

_BAD_CREDENTIAL: Any = (  # a typed key where aiohttp has them (3.14+), which warns about plain strings
    web.RequestKey("claw.server.bad_credential", str) if hasattr(web, "RequestKey") else "claw.server.bad_credential"
)
"""Where the refused credential waits on the request, for the guard, until the handler returns."""


def report_bad_credential(request: web.Request, presented: str) -> None:
    """`request` presented `presented` as its credential and it was wrong (see the module docstring)."""
    request[_BAD_CREDENTIAL] = presented


def reported_bad_credential(request: web.Request) -> str | None:
    """The credential the route's handler reported as wrong, if it reported one (for the guard)."""
    value = request.get(_BAD_CREDENTIAL)
    return value if isinstance(value, str) else None
