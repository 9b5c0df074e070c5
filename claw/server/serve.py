"""`claw gateway run`: the gateway as a long-lived foreground process.

Start: resolve the token (a loopback gateway creates one if `claw init` has not),
refuse a non-loopback bind without one, take the state lock, start the gateway with
its services and the network server, then write `gateway.json`.

Stop (SIGINT or SIGTERM): refuse new runs, let running turns finish for up to
`gateway.shutdownGraceSeconds` (a second signal cuts that short), then stop the
services (clients get a `shutdown` event and a 1001 close), abort what is left,
flush the stores, remove `gateway.json` and release the lock.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from claw import __version__
from claw.server.auth import create_token_file, is_loopback, resolve_token
from claw.server.runtime_file import RuntimeInfo, StateLock, remove_runtime, write_runtime
from claw.server.settings import ServerSettings

if TYPE_CHECKING:
    from claw.config import Config
    from claw.gateway.gateway import Gateway
    from claw.paths import Paths

    BuildGateway = Callable[..., Gateway]
    """`build_gateway(paths, config, services=...)`: a gateway with every capability."""

log = logging.getLogger("claw.gateway")

ABORT_WAIT_SECONDS = 10.0


class GatewayProcess:
    """One foreground gateway. Construction checks the settings (and may raise ConfigError); `run` serves."""

    def __init__(self, paths: Paths, config: Config, *, bind: str | None = None, port: int | None = None) -> None:
        self.paths = paths
        self.config = config
        token, self.token_source = resolve_token(paths)
        if token is None and is_loopback(bind or config.gateway.bind):
            token, self.token_source = create_token_file(paths), "file (created now)"
        self.settings = ServerSettings.from_config(config.gateway, token, bind=bind, port=port)
        self.grace_s = config.gateway.shutdown_grace_seconds

    async def run(self, build_gateway: BuildGateway) -> None:
        """Serve until SIGINT or SIGTERM; the gateway comes from `build_gateway` (`claw.compose`'s: the server
        is handed its gateway by composition, it never composes one)."""
        from claw.server.server import GatewayServer

        lock = StateLock(self.paths)
        lock.acquire()
        server = GatewayServer(self.settings)
        gateway = build_gateway(self.paths, self.config, services=lambda gw: [*gw.capability_services(), server])
        stop, force = asyncio.Event(), asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, lambda: force.set() if stop.is_set() else stop.set())
        pid = os.getpid()
        try:
            await gateway.start()
            assert server.port is not None
            write_runtime(
                self.paths, RuntimeInfo(pid, server.url, self.settings.bind, server.port, time.time(), __version__)
            )
            log.info("gateway ready at %s (pid %d, token from %s)", server.url, pid, self.token_source)
            await stop.wait()
            server.draining = True
            await _drain(gateway, self.grace_s, force)
        finally:
            log.info("stopping: closing connections, aborting unfinished runs, flushing state")
            await gateway.close()
            remove_runtime(self.paths, pid)
            lock.release()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)
            log.info("gateway stopped")


async def _drain(gateway: Gateway, grace_s: float, force: asyncio.Event) -> None:
    """Wait up to `grace_s` for the running and queued runs to end, or until `force` is set."""
    active = gateway.runs.active()
    if not active:
        return
    log.info(
        "shutting down: waiting up to %g s for %d run(s) to finish (signal again to abort now)", grace_s, len(active)
    )
    finished: asyncio.Future[Any] = asyncio.ensure_future(asyncio.gather(*(run.wait() for run in active)))
    forced: asyncio.Future[Any] = asyncio.ensure_future(force.wait())
    try:
        await asyncio.wait({finished, forced}, timeout=grace_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        finished.cancel()
        forced.cancel()
    left = gateway.runs.active()
    if left:
        log.info("aborting %d run(s) still going", len(left))
        for run in left:
            gateway.abort(run.id)
        # Their terminal events go out while the server still serves (it stops after this).
        await asyncio.wait([asyncio.ensure_future(run.wait()) for run in left], timeout=ABORT_WAIT_SECONDS)
