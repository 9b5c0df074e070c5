"""Plugs subagents into the gateway: the `sessions_*` tools, the Subagent prompt section, the
`subagents.*` RPC methods and `/subagents`. Each gateway gets its own `SubagentRegistry`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.gateway.per_gateway import PerGateway
from claw.subagents.registry import SubagentRegistry

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway

registry_for = PerGateway(lambda _gateway: SubagentRegistry())
"""The gateway's subagent registry, created on first use."""


def install(gateway: Gateway) -> None:
    from claw.gateway import commands
    from claw.subagents import methods as _methods  # noqa: F401 - registers subagents.list / abort / wait
    from claw.subagents.command import subagents_command
    from claw.subagents.history_tool import HistoryTool
    from claw.subagents.list_tool import ListTool
    from claw.subagents.section import SubagentSection
    from claw.subagents.send_tool import SendTool
    from claw.subagents.spawn_tool import SpawnTool

    registry = registry_for(gateway)
    for tool in (SpawnTool(gateway, registry), ListTool(gateway), HistoryTool(gateway), SendTool(gateway)):
        if gateway.tools.get(tool.name) is None:
            gateway.tools.register(tool)
    gateway.runner.sections.append(SubagentSection(gateway))
    commands.register("subagents", "list this session's subagents; /subagents stop <runId|all>", subagents_command)
    if stop_children not in commands.STOP_LISTENERS:
        commands.STOP_LISTENERS.append(stop_children)


def stop_children(gateway: Gateway, session_key: str) -> int:
    """/stop in a session also stops the subagents it spawned (each is then announced as stopped)."""
    return sum(gateway.abort(r.run_id) for r in registry_for(gateway).active_children(session_key))
