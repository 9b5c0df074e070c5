"""A gateway process without the network server: `python -m tests.automations.gateway_harness`.

It runs the gateway with its default services (the scheduler among them) and writes no
`gateway.json`, so `claw automations …` commands take their in-process path and the gateway
must notice their changes in gateway.db by itself. (`claw gateway run` is the real thing with
the server; the crash tests use that.) Prints `READY <pid>` once started; stops on SIGTERM.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys


async def main() -> None:

    from claw.compose import build_gateway
    from claw.config import load_config
    from claw.gateway.gateway import Gateway
    from claw.paths import Paths

    paths = Paths.from_env()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with build_gateway(paths, load_config(paths), services=Gateway.capability_services):
        print(f"READY {os.getpid()}", flush=True)
        await stop.wait()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    asyncio.run(main())
