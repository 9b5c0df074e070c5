"""`RpcMethod`: one RPC method as it is declared, once: its wire name, the operator scope it needs, and
what answers it.

Every method the gateway or the network server serves is one (the core's in `claw/api/`, a capability's
in its own `methods.py`, the server's `device.pair.*` and `plugin.approval.*`), so adding a method is
writing its function and one `RpcMethod(...)` line in its namespace's table. The scope is a name from
`claw.protocol.scopes`, or, for the two methods whose scope OpenClaw takes from the params (`agent` with
`/new`, `sessions.delete`), a function of the params.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from claw.api.params import ClosedParamsError
from claw.errors import UsageError
from claw.protocol.scopes import scope_by_name

Scope = str | Callable[[Mapping[str, Any] | None], str]
"""A scope name, or the scope a call with these params needs (None: params not known yet)."""


@dataclass(frozen=True, slots=True)
class RpcMethod:
    """An RPC method: called as its handler is (the host it runs on, then the raw params; a server
    method, the raw params alone); a `ClosedParams` problem is worded as OpenClaw does, naming it."""

    name: str
    scope: Scope
    handler: Callable[..., Awaitable[Any]]

    async def __call__(self, *args: Any) -> Any:
        try:
            return await self.handler(*args)
        except ClosedParamsError as exc:
            raise UsageError(f"invalid {self.name} params: {exc.message}") from None

    def scope_for(self, params: Mapping[str, Any] | None = None) -> str:
        """The scope a call with `params` needs."""
        return self.scope(params) if callable(self.scope) else self.scope

    @property
    def params_model(self) -> Any:
        """The params model its handler checks the raw params against (`claw.api.params.takes`)."""
        return getattr(getattr(self.handler, "func", self.handler), "params_model", None)


def table(*methods: RpcMethod) -> dict[str, RpcMethod]:
    """`methods` by wire name; a name declared twice is a programming error."""
    by_name: dict[str, RpcMethod] = {}
    for method in methods:
        if method.name in by_name:
            raise ValueError(f"the method {method.name!r} is declared twice")
        by_name[method.name] = method
    return by_name


def required_scope(method: object, name: str, params: Mapping[str, Any] | None = None) -> str:
    """The scope a call of `name` with `params` needs: what `method` declares, or, for a method not
    declared as an `RpcMethod`, what its name says (`claw.protocol.scopes.scope_by_name`)."""
    return method.scope_for(params) if isinstance(method, RpcMethod) else scope_by_name(name)
