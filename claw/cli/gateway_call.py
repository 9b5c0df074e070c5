"""How one-off CLI commands reach a gateway: the running one if there is one, else one in this process.

With a gateway running on the same state (`gateway.json`, see `claw.server.runtime_file`), commands
such as `claw sessions reset` or `claw automations run` go through it over WebSocket, so that one
process owns the state and nothing is written by two at once. Without one, the method runs in an
in-process gateway with no services, which is just as safe: nobody else holds the state; a listing
(`sessions.list`, `usage.summary` …) and `automations.add` use the state without building one
(claw.cli.state_methods).
"""

from __future__ import annotations

import asyncio
from typing import Any

DEFAULT_CALL_TIMEOUT = 30.0


def running_gateway_url() -> str | None:
    from claw.paths import Paths
    from claw.server.runtime_file import read_runtime

    info = read_runtime(Paths.from_env())
    return None if info is None else info.url


def call_gateway(method: str, *, timeout: float = DEFAULT_CALL_TIMEOUT, **params: Any) -> Any:
    """Call `method` on the running gateway, or on an in-process one when none is running."""
    url = running_gateway_url()
    if url is not None:
        return asyncio.run(_call_remote(url, method, params, timeout))
    from claw.cli import state_methods

    if state_methods.answers(method, params):  # a listing (or adding a job): the state, no gateway built
        return state_methods.call(method, params)
    return asyncio.run(_call_local(method, params))


async def _call_local(method: str, params: dict[str, Any]) -> Any:
    from claw.cli.common import load
    from claw.client.local import LocalClient
    from claw.compose import build_gateway

    paths, config = load()
    client = LocalClient(build_gateway(paths, config))
    try:
        return await client.call(method, **params)
    finally:
        await client.close()


async def _call_remote(url: str, method: str, params: dict[str, Any], timeout: float) -> Any:
    from claw.client.remote import RemoteClient
    from claw.errors import ConfigError
    from claw.paths import Paths
    from claw.server.auth import TOKEN_ENV, resolve_token

    token, _source = resolve_token(Paths.from_env())
    if token is None:
        raise ConfigError(f"no gateway token to connect with: set {TOKEN_ENV} or run `claw init`")
    client = await RemoteClient.connect(url, token, call_timeout=timeout)
    try:
        return await client.call(method, **params)
    finally:
        await client.close()


AGENT_CALL_TIMEOUT = 600.0
"""Agent methods may index memory or install a skill: give a running gateway time to finish."""


def call_agent_method(agent_id: str, method: str, *, timeout: float = AGENT_CALL_TIMEOUT, **params: Any) -> Any:
    """`call_gateway` for a method that acts on one agent; a bad config or unknown agent is reported first."""
    from claw.cli.common import load

    load(agent_id)
    return call_gateway(method, timeout=timeout, agentId=agent_id, **params)
