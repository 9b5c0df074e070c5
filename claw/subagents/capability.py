"""Subagents as a capability: the `sessions_*` tools, the Subagent prompt section, the `subagents.*` RPC
methods and `/subagents`, over one `SubagentRegistry`; `/stop` in a session also stops its children."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

from claw.gateway.capability import BaseCapability, Command
from claw.subagents.command import subagents_command
from claw.subagents.registry import SubagentRegistry

if TYPE_CHECKING:
    from claw.agent.sections import PromptSectionSource
    from claw.gateway.capability import Method
    from claw.gateway.commands import StopListener
    from claw.subagents.host import SubagentsHost
    from claw.tools.base import Tool


class SubagentsCapability(BaseCapability):
    name = "subagents"
    method_namespaces = ("subagents.",)

    def __init__(self, host: SubagentsHost) -> None:
        self.host = host
        self.registry = SubagentRegistry()

    def tools(self) -> Sequence[Tool]:
        from claw.subagents.history_tool import HistoryTool
        from claw.subagents.list_tool import ListTool
        from claw.subagents.send_tool import SendTool
        from claw.subagents.spawn_tool import SpawnTool

        host = self.host
        return (SpawnTool(host, self.registry), ListTool(host), HistoryTool(host), SendTool(host))

    def sections(self) -> Sequence[PromptSectionSource]:
        from claw.subagents.section import SubagentSection

        return (SubagentSection(self.host),)

    def commands(self) -> Sequence[Command]:
        describe = "list this session's subagents; /subagents stop <runId|all>"
        return (Command("subagents", describe, partial(subagents_command, self.registry)),)

    def stop_listeners(self) -> Sequence[StopListener]:
        return (self.stop_children,)

    def methods(self) -> Mapping[str, Method]:
        from claw.subagents.methods import subagent_methods  # on first use: see claw.gateway.method_table

        return subagent_methods(self.registry, self.host)

    def stop_children(self, host: SubagentsHost, session_key: str) -> int:
        """/stop in a session also stops the subagents it spawned (each is then announced as stopped)."""
        return sum(host.abort(r.run_id) for r in self.registry.active_children(session_key))
