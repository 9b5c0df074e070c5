"""`DeviceWatch`: a device that is no longer paired loses its open connections at once.

The devices file (claw/server/devices.py) is changed by two processes: the gateway (OpenClaw's
`device.pair.*` methods) and `claw devices`, which edits the file directly so that it works the same
whether or not a gateway runs. The file is therefore the one authority, and the gateway watches it:
every `interval_s` it compares the file's signature (inode, size, times: each write replaces the file),
and when it changed re-reads the statuses and closes, with 1008 and a reason a person can read, every
connection whose device is now revoked, pending or gone. OpenClaw's clients take 1008 for an auth
failure. A change the gateway makes itself does not wait for the next look: `cut` closes at once.

A connection that authenticated just before a revocation but registered just after the look that
saw it would be missed, so `recheck` (called for each new device connection) makes the next look
re-read the file even if it did not change. While the file cannot be read nothing is closed: a
broken file refuses new devices at connect (the handshake), it does not disconnect everyone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from aiohttp import WSCloseCode

from claw.errors import ClawError
from claw.server.devices import PAIRED, REVOKED, DeviceRegistry

if TYPE_CHECKING:
    from claw.server.ws_connection import WsConnection

log = logging.getLogger(__name__)

REVOKED_REASON = "device revoked: `claw devices approve ID` on the gateway host lets it in again"
REMOVED_REASON = "device removed: it must pair again"
UNPAIRED_REASON = "device no longer paired: `claw devices approve ID` on the gateway host lets it in"


def reason_for(status: str | None) -> str:
    """The close reason for a device whose record is now `status` (None: no record)."""
    if status == REVOKED:
        return REVOKED_REASON
    return REMOVED_REASON if status is None else UNPAIRED_REASON


class DeviceWatch:
    """Watches the devices file for the server; `run()` is its long-lived task."""

    def __init__(
        self, registry: DeviceRegistry, connections: Callable[[], Iterable[WsConnection]], interval_s: float
    ) -> None:
        self.registry = registry
        self._connections = connections
        self.interval_s = interval_s
        self._seen: tuple[int, ...] | None | bool = False
        """The signature last read; False until the first look (and after `recheck`): read in any case."""
        self._closing: set[asyncio.Task[int]] = set()

    def recheck(self) -> None:
        """Make the next look re-read the file even if its signature did not change."""
        self._seen = False

    async def run(self) -> None:
        """Look every `interval_s` until cancelled; then let the closes under way finish."""
        try:
            while True:
                await asyncio.sleep(self.interval_s)
                await self.look()
        finally:
            if self._closing:
                await asyncio.gather(*self._closing, return_exceptions=True)

    async def look(self) -> None:
        """Read the statuses if the file changed, and close the connections of devices no longer paired."""
        signature = self.registry.signature()
        if signature == self._seen:
            return
        if not any(c.info.device_id for c in self._connections()):
            self._seen = signature  # nothing to close; a device connecting later is checked at its connect
            return
        self._seen = signature  # a file that cannot be read is reported once, and read again once it changes
        try:
            statuses = await asyncio.to_thread(self.registry.statuses)
        except (ClawError, OSError) as exc:
            log.error("cannot read the devices file to check open connections: %s", exc)
            return
        await asyncio.gather(*(
            self.cut(device_id, reason_for(status))
            for device_id, status in _unpaired(statuses, self._connections())
        ))  # fmt: skip

    async def cut(self, device_id: str, reason: str) -> int:
        """Close every open connection of `device_id` (1008, `reason`); how many there were."""
        doomed = [c for c in self._connections() if c.info.device_id == device_id]
        if doomed:
            log.warning("closing %d connection(s) of device %s: %s", len(doomed), device_id[:12], reason)
            await asyncio.gather(*(c.close(WSCloseCode.POLICY_VIOLATION, reason) for c in doomed))
        return len(doomed)

    def cut_soon(self, device_id: str, reason: str) -> None:
        """`cut`, started now and finished in the background (the caller has an answer to send first)."""
        task = asyncio.ensure_future(self.cut(device_id, reason))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)


def _unpaired(statuses: dict[str, str], connections: Iterable[WsConnection]) -> list[tuple[str, str | None]]:
    connected = {c.info.device_id for c in connections if c.info.device_id}
    return [(d, statuses.get(d)) for d in sorted(connected) if statuses.get(d) != PAIRED]
