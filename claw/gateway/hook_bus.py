"""`HookBus`: where the gateway fires hook events, and `HookSource`, the protocol handlers come through.

The bus knows nothing of hook folders or handler files: a `HookSource` attached to it (the hooks
capability's registry) says which handlers run for an event. Without one, firing does nothing. With
one, each handler runs in turn on its own copy of the event's lists: a handler that fails changes
nothing, one that succeeds passes its changes (to `files`, to `messages`) on to the next handler and
back to the caller. Background events of one session run in the order they were fired; different
sessions do not wait for each other.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import fields, replace
from typing import Any, Protocol, TypeVar

from claw.gateway.hook_events import HookEvent

log = logging.getLogger(__name__)

E = TypeVar("E", bound=HookEvent)
DRAIN_LIMIT_SECONDS = 120.0

HookHandler = Callable[[HookEvent], Awaitable[bool]]
"""Runs one hook on its own copy of an event, under the hook timeout; True when it succeeded, so that
its changes are kept. A hook's failure is the handler's to log: it returns False rather than raise."""


class HookSource(Protocol):
    """Which handlers run for an event (the hooks capability's `HookRegistry`)."""

    @property
    def timeout_seconds(self) -> float:
        """How long one handler may take; a hook's model call gets a share of it."""
        ...

    def handlers(self, event: HookEvent) -> Sequence[HookHandler]:
        """The handlers for `event`, in the order they run."""
        ...


class HookBus:
    """One per gateway. `fire` awaits the handlers; `fire_soon` runs them in the background."""

    def __init__(self) -> None:
        self.source: HookSource | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self._tails: dict[str, asyncio.Task[None]] = {}  # per session key: the last background event fired
        self._adapter_channels: set[str] = set()

    def attach(self, source: HookSource) -> None:
        self.source = source

    @property
    def timeout_seconds(self) -> float:
        """The attached source's handler timeout (0 without one)."""
        return self.source.timeout_seconds if self.source is not None else 0

    def adapter_delivers(self, channel: str) -> None:
        """Say that `channel`'s adapter fires `message:sent` itself when it delivers a reply, so the
        gateway does not fire it again when a run on that channel ends."""
        self._adapter_channels.add(channel.lower())

    def fires_sent_for(self, channel: str) -> bool:
        return channel.lower() not in self._adapter_channels

    async def fire(self, event: E, handlers: Sequence[HookHandler] | None = None) -> E:
        """Run the matching handlers (or `handlers`, found already) now; returns the event as the
        successful ones left it."""
        if handlers is None:
            handlers = self._matching(event)
        for handler in handlers:
            attempt = _fork(event)
            try:
                succeeded = await handler(attempt)
            except Exception:  # a handler breaking its promise not to raise: still only its own failure
                log.exception("a handler of %s raised", event.name)
                succeeded = False
            if succeeded:
                event = attempt
        if event.messages and not event.name.startswith("command:"):
            log.info("hooks said on %s: %s", event.name, " | ".join(event.messages))
        return event

    def fire_soon(self, event: HookEvent) -> None:
        """Run the matching handlers in the background (the gateway's close waits for them). The lookup
        happens on the loop's next turn, after whatever the caller set in motion (an `end` event on its
        way to a client); an event no hook handles (most, on most turns) costs only that lookup."""
        if self.source is not None:
            asyncio.get_running_loop().call_soon(self._start, event)

    def _start(self, event: HookEvent) -> None:
        handlers = self._matching(event)
        if not handlers:
            return
        key = event.session_key or ""
        previous = self._tails.get(key)
        background = self._background(event, handlers, previous)
        task = asyncio.get_running_loop().create_task(background, name=f"hooks:{event.name}")
        self._pending.add(task)
        self._tails[key] = task
        task.add_done_callback(lambda done: self._forget(key, done))

    async def drain(self, limit_seconds: float = DRAIN_LIMIT_SECONDS) -> None:
        """Wait for background handlers (each is bounded by the hook timeout); cancel what is left at
        `limit_seconds`."""
        await asyncio.sleep(0)  # events fired just before have been looked up (`_start`) after this
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit_seconds
        while self._pending:
            left = deadline - loop.time()
            if left <= 0:
                for task in list(self._pending):
                    task.cancel()
                await asyncio.gather(*self._pending, return_exceptions=True)
                return
            await asyncio.wait(set(self._pending), timeout=left)

    def _forget(self, key: str, task: asyncio.Task[None]) -> None:
        self._pending.discard(task)
        if self._tails.get(key) is task:
            del self._tails[key]

    async def _background(
        self, event: HookEvent, handlers: Sequence[HookHandler], previous: asyncio.Task[None] | None
    ) -> None:
        if previous is not None:
            await asyncio.wait([previous])  # the session's earlier events first (never raises)
        try:
            await self.fire(event, handlers)
        except Exception:  # `fire` contains handler failures; this is claw's own bug, and still must not spread
            log.exception("firing %s failed", event.name)

    def _matching(self, event: HookEvent) -> Sequence[HookHandler]:
        if self.source is None:
            return ()
        try:
            # On the loop: finding the hooks is a few stats (manifests are parsed once, then cached),
            # ~50 µs, where a worker thread would cost a hand-off and GIL contention on every event.
            return self.source.handlers(event)
        except Exception:
            log.exception("could not find the hooks for %s", event.name)
            return ()


def _fork(event: E) -> E:
    """A copy whose lists are the handler's own, so a failed or late hook cannot change the original."""
    lists: dict[str, Any] = {f.name: list(v) for f in fields(event) if isinstance(v := getattr(event, f.name), list)}
    return replace(event, **lists)
