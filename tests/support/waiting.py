"""Waiting on events with a deadline that fails with a message, instead of sleeping a fixed time."""

from __future__ import annotations

import asyncio
import os
import selectors
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import IO


@asynccontextmanager
async def deadline(seconds: float, what: str) -> AsyncIterator[None]:
    """`asyncio.timeout(seconds)` whose expiry is an AssertionError naming `what` was awaited."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        raise AssertionError(f"timed out after {seconds:g}s waiting for {what}") from None


def read_until(stream: IO[str], seen: Callable[[str], bool], timeout: float = 60.0, what: str = "output") -> str:
    """Read a child process's pipe until `seen(text so far)`; returns that text (ASCII output assumed).

    Reads the file descriptor directly, so `Popen.communicate()` afterwards gets exactly the rest."""
    fd = stream.fileno()
    data = b""
    end = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while not seen(data.decode(errors="replace")):
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out after {timeout:g}s waiting for {what}; got {data[-500:]!r}")
            if selector.select(left):
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise AssertionError(f"the output ended before {what}; got {data[-500:]!r}")
                data += chunk
    return data.decode(errors="replace")
