"""`Capability`: what memory, skills, automations, subagents, hooks and channels add to a gateway.

A capability is an object built in `claw.compose` with exactly what it needs (of the gateway, only the
operations its own host protocol names: see `claw.gateway.host`), holding its own state (an index, a
manager, a registry). The gateway asks it once, in `Gateway.use`, for what it adds:

- `tools()`: tools the model may call (a name already taken is kept by whoever came first)
- `tool_sources()`: tools that come and go while the gateway runs (MCP servers'), asked every turn
- `sections()`: prompt sections, in the order the capabilities were given
- `env_sources()` / `bootstrap_filters()`: variables for `exec`, filters over the bootstrap files
- `read_roots()`: folders outside the workspace the `read` tool may read
- `commands()`, `command_fallbacks()`, `stop_listeners()`: slash commands, answers for unknown
  `/names` (a skill's `/<name>`), and what `/stop` also stops
- `methods()`: RPC methods by wire name, served in-process and over WebSocket alike; a capability
  whose methods all start with the prefixes in `method_namespaces` (`("memory.",)`) is asked for
  them only when one is first called (`claw.gateway.method_table`), so a one-shot turn imports none
- `services()`: long-lived services, started only by gateways that run them (`claw chat`,
  `claw gateway run`), never by a one-shot `claw agent`
- `routes()`: HTTP routes on the gateway server's port (webhooks)

and `aclose()` then `close()` when the gateway closes (`aclose` for what must be awaited: child
processes). `BaseCapability` answers "nothing" to each, so a capability only writes what it adds.
Nothing registers itself on import: the gateway's tables are built from the capabilities it was handed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from claw.gateway.command_call import Command

if TYPE_CHECKING:
    from claw.agent.bootstrap import BootstrapFilter
    from claw.agent.sections import PromptSectionSource, RunEnvSource
    from claw.gateway.command_call import Fallback, StopListener
    from claw.gateway.services import GatewayService
    from claw.tools.base import Tool
    from claw.tools.registry import ToolSource

Method = Callable[[Any, dict[str, Any]], Awaitable[Any]]
"""An RPC method: called with the gateway and the request's raw params (with `_channel`, the caller's
channel). Declare one as a `claw.api.method.RpcMethod` (its name and scope beside it) of a function of a
params model, wrapped with `claw.api.params.takes`, which checks them. The first argument is `Any` here:
each method types the gateway by the narrow protocol of what it uses (`claw.api.host.ApiHost`), or, a
capability's, leaves it unused, being bound to its own state and host."""


@dataclass(frozen=True, slots=True)
class HttpRoute:
    """An HTTP route a capability adds to the gateway server (an aiohttp handler). The server's Origin
    check and failed-auth limiter apply; authenticating the request (a signature, a secret header) is
    the handler's job, since such routes are for senders that do not hold the gateway token."""

    method: str
    path: str
    handler: Callable[[Any], Awaitable[Any]]


class Capability(Protocol):
    """One capability of the gateway; see the module docstring for what each member adds."""

    name: str

    @property
    def method_namespaces(self) -> tuple[str, ...]: ...  # read-only, so a class may set `("memory.",)`

    def tools(self) -> Sequence[Tool]: ...
    def tool_sources(self) -> Sequence[ToolSource]: ...
    def sections(self) -> Sequence[PromptSectionSource]: ...
    def env_sources(self) -> Sequence[RunEnvSource]: ...
    def bootstrap_filters(self) -> Sequence[BootstrapFilter]: ...
    def read_roots(self) -> Sequence[Path]: ...
    def commands(self) -> Sequence[Command]: ...
    def command_fallbacks(self) -> Sequence[Fallback]: ...
    def stop_listeners(self) -> Sequence[StopListener]: ...
    def methods(self) -> Mapping[str, Method]: ...
    def services(self) -> Sequence[GatewayService]: ...
    def routes(self) -> Sequence[HttpRoute]: ...
    async def aclose(self) -> None: ...
    def close(self) -> None: ...


class BaseCapability:
    """A capability that adds nothing; subclasses override what they add."""

    name = "capability"
    method_namespaces: tuple[str, ...] = ()

    def tools(self) -> Sequence[Tool]:
        return ()

    def tool_sources(self) -> Sequence[ToolSource]:
        return ()

    def sections(self) -> Sequence[PromptSectionSource]:
        return ()

    def env_sources(self) -> Sequence[RunEnvSource]:
        return ()

    def bootstrap_filters(self) -> Sequence[BootstrapFilter]:
        return ()

    def read_roots(self) -> Sequence[Path]:
        return ()

    def commands(self) -> Sequence[Command]:
        return ()

    def command_fallbacks(self) -> Sequence[Fallback]:
        return ()

    def stop_listeners(self) -> Sequence[StopListener]:
        return ()

    def methods(self) -> Mapping[str, Method]:
        return {}

    def services(self) -> Sequence[GatewayService]:
        return ()

    def routes(self) -> Sequence[HttpRoute]:
        return ()

    async def aclose(self) -> None:
        return None

    def close(self) -> None:
        return None
