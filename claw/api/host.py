"""`ApiHost`: what the wire API's methods and event projections use of the gateway, and nothing more.

Every method in `claw/api/` is typed by this protocol, never by `Gateway`; `Gateway` satisfies it
structurally and is what `Gateway.call_method` hands each method. A method that needs something new of
the gateway adds the member here, where a reader sees the whole of what the API reaches into.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from claw.agent.env import AgentEnv
    from claw.agent.runner import AgentRunner
    from claw.config import Config
    from claw.gateway.broadcaster import Broadcaster
    from claw.gateway.commands import CommandTable
    from claw.gateway.dispatch_result import DispatchResult
    from claw.gateway.lanes import LaneScheduler
    from claw.gateway.runs import RunRegistry
    from claw.paths import Paths
    from claw.providers.failover import ModelRouter
    from claw.store.sessions import SessionEntry, SessionStore
    from claw.tools.exec_approvals import ApprovalBroker
    from claw.tools.registry import ToolRegistry
    from claw.vocab.msg_context import MsgContext


class ApiHost(Protocol):
    """The gateway as the wire API sees it."""

    paths: Paths
    config: Config
    runner: AgentRunner
    router: ModelRouter
    runs: RunRegistry
    lanes: LaneScheduler
    approvals: ApprovalBroker
    tools: ToolRegistry
    commands: CommandTable
    broadcasts: Broadcaster
    started_at: float

    def sessions(self, agent_id: str) -> SessionStore: ...

    def workspace(self, agent_id: str) -> Path: ...

    def agent_env(self, agent_id: str) -> AgentEnv: ...

    async def dispatch(
        self, ctx: MsgContext, *, idempotency_key: str | None = None, model: str | None = None, lane: str = "main"
    ) -> DispatchResult: ...

    def abort(self, run_id: str) -> bool: ...

    def abort_session(self, session_key: str) -> int: ...

    async def reset_session(self, session_key: str) -> SessionEntry: ...

    async def call_method(self, name: str, params: dict[str, Any], *, channel: str = "cli") -> Any: ...
