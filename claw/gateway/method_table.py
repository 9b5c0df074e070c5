"""`MethodTable`: every RPC method a gateway serves, with each capability's built on first use.

A one-shot `claw agent -m hello` serves no RPC method of memory, skills or automations, yet building
those tables means importing their modules and the pydantic params models in them (about a tenth of a
cold turn). So a capability that names the namespaces its methods live in (`method_namespaces =
("memory.",)`) is asked for its `methods()` only when a name in one of them is first looked up, or when
someone needs every name (the WebSocket handshake's method list). A capability that names none is
asked at once, as before.

What `Gateway.use` checked eagerly still holds, only later: a name taken twice, or a method outside
its capability's namespaces, is a programming error, raised when that capability's table is built.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claw.gateway.capability import Capability, Method


class MethodTable(Mapping[str, "Method"]):
    """RPC methods by wire name: the core's at once, a capability's when its namespace is first used."""

    def __init__(self, core: Mapping[str, Method]) -> None:
        self._methods: dict[str, Method] = dict(core)
        self._pending: list[Capability] = []

    def add(self, capability: Capability) -> None:
        """Take `capability`'s methods now, or when one of its `method_namespaces` is first looked up."""
        namespaces = capability.method_namespaces
        for namespace in namespaces:
            if any(namespace in c.method_namespaces for c in self._pending) or any(
                name.startswith(namespace) for name in self._methods
            ):
                raise ValueError(f"{capability.name}: the method namespace {namespace!r} is taken")
        if namespaces:
            self._pending.append(capability)
        else:
            self._take(capability)

    def __getitem__(self, name: str) -> Method:
        if name not in self._methods:
            for capability in [c for c in self._pending if _serves(c, name)]:
                self._build(capability)
        return self._methods[name]

    def __len__(self) -> int:
        return len(self.names())

    def names(self) -> list[str]:
        """Every method's wire name (this builds every table still pending)."""
        for capability in list(self._pending):
            self._build(capability)
        return list(self._methods)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def _build(self, capability: Capability) -> None:
        self._pending.remove(capability)
        self._take(capability)

    def _take(self, capability: Capability) -> None:
        offered = capability.methods()
        namespaces = capability.method_namespaces
        for name in offered:
            if name in self._methods:
                raise ValueError(f"{capability.name}: the method {name!r} is taken")
            if namespaces and not name.startswith(tuple(namespaces)):
                raise ValueError(f"{capability.name}: the method {name!r} is outside {', '.join(namespaces)}")
        self._methods.update(offered)


def _serves(capability: Capability, name: str) -> bool:
    return name.startswith(capability.method_namespaces)
