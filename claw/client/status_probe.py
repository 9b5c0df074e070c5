"""Ask a running gateway how it is: `claw gateway status` and `claw doctor` use the same probe."""

from __future__ import annotations

from typing import Any


async def probe_status(url: str, token: str) -> dict[str, Any]:
    """The gateway's `status` (without its uptime: the runtime file's start time says it), or `{"error": why}`
    when it does not answer."""
    from claw.client.remote import RemoteClient
    from claw.errors import ClawError

    try:
        client = await RemoteClient.connect(url, token, open_timeout=3.0, call_timeout=5.0)
    except ClawError as exc:
        return {"error": exc.message}
    try:
        state = await client.call("status")
    except ClawError as exc:
        return {"error": exc.message}
    finally:
        await client.close()
    return {k: v for k, v in state.items() if k != "uptimeMs"} if isinstance(state, dict) else {}
