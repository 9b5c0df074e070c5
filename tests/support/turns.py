"""Driving whole turns from a test: send a message through any `GatewayClient` and wait for its run to end."""

from __future__ import annotations

from typing import Any


async def run_turn(client: Any, session_key: str, message: str) -> None:
    """Send `message` into `session_key` and read the run's events to its end."""
    handle = await client.run(message, session_key=session_key)
    async for _event in client.events(handle.run_id):
        pass
