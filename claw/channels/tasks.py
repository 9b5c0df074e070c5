"""`cancel_and_wait`: how an adapter (or the channel service) stops a long-lived task it owns."""

from __future__ import annotations

import asyncio
import contextlib


async def cancel_and_wait(task: asyncio.Task[None] | None) -> None:
    """Cancel `task` (None: nothing runs) and return once it has finished, its cleanup done, so whatever it
    held — a connection, a session — can be closed after it."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
