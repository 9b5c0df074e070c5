"""Calling one hook for one event: under a timeout, failures logged and swallowed.

An `async def` handler runs on the event loop and is cancelled at the timeout. A plain
function (and the import of handler.py) runs in a daemon thread of its own: at the timeout
claw stops waiting for it, and a thread that never returns cannot keep the process alive.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from claw.gateway.hook_events import HookEvent
from claw.hooks.hook import Hook
from claw.hooks.loader import HookLoadError, load_handler

log = logging.getLogger(__name__)

T = TypeVar("T")


async def invoke(hook: Hook, event: HookEvent, timeout_seconds: float) -> bool:
    """Run `hook` on `event`; True if it returned in time without raising."""
    try:
        async with asyncio.timeout(timeout_seconds) as deadline:
            try:
                handler = await in_daemon_thread(load_handler, hook)
                if inspect.iscoroutinefunction(handler):
                    await handler(event)
                else:
                    result = await in_daemon_thread(handler, event)
                    if inspect.isawaitable(result):
                        await result
            except asyncio.CancelledError:
                raise
            except HookLoadError as exc:
                log.error("hook %s (%s) not run for %s: %s", hook.name, hook.source, event.name, exc)
                return False
            except (Exception, SystemExit) as exc:  # a hook's bug or its sys.exit() is the hook's failure alone
                log.error(
                    "hook %s (%s) failed on %s: %s: %s",
                    hook.name,
                    hook.source,
                    event.name,
                    type(exc).__name__,
                    exc,
                    exc_info=exc,
                )
                return False
    except TimeoutError:
        if not deadline.expired():
            raise
        log.error("hook %s (%s) timed out after %g s on %s", hook.name, hook.source, timeout_seconds, event.name)
        return False
    return True


def in_daemon_thread(fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """`fn(*args)` in a new daemon thread, as a future of this loop (cancelling it only stops the wait)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        try:
            value, error = fn(*args), None
        except BaseException as exc:  # delivered to the awaiting coroutine, never raised in this thread
            value, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the loop closed while the hook ran: nobody is waiting any more
            pass

    threading.Thread(target=work, name=f"claw-hook:{getattr(fn, '__name__', 'handler')}", daemon=True).start()
    return future
