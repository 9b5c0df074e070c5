"""`CORE_METHODS`: the gateway's own RPC methods, every namespace's table in one, by wire name.

`claw.compose` hands this to the `Gateway`, which serves it (and each capability's `methods()` after it)
through `Gateway.call_method`, in-process (`LocalClient`) and over WebSocket alike. Each entry is an
`RpcMethod` declared in its namespace's module, with the scope it needs beside it.
"""

from __future__ import annotations

from collections.abc import Mapping

from claw.api.agent import AGENT_METHODS
from claw.api.approvals import APPROVAL_METHODS
from claw.api.catalog import CATALOG_METHODS
from claw.api.chat import CHAT_METHODS
from claw.api.method import RpcMethod, table
from claw.api.operator import OPERATOR_METHODS
from claw.api.sessions import SESSIONS_METHODS
from claw.api.sessions_context import SESSION_CONTEXT_METHODS
from claw.api.sessions_history import SESSION_METHODS
from claw.api.sessions_lifecycle import SESSION_LIFECYCLE_METHODS
from claw.api.system import SYSTEM_METHODS
from claw.api.workspace import WORKSPACE_METHODS

CORE_METHODS: Mapping[str, RpcMethod] = table(
    *SYSTEM_METHODS.values(),  # health, status, agents.list, models.list, config.get, presence, lists claw has none of
    *OPERATOR_METHODS.values(),  # logs.tail, diagnostics, node.*, approval.*, wake, secrets.reload: OpenClaw's CLI
    *AGENT_METHODS.values(),  # agent, agent.wait, agent.abort, agent.follow
    *SESSIONS_METHODS.values(),  # sessions list, describe, subscribe, get, reset, delete, patch
    *CHAT_METHODS.values(),  # chat.send, chat.abort, chat.history
    *SESSION_METHODS.values(),  # search, reindex, fork, undo, export
    *SESSION_LIFECYCLE_METHODS.values(),  # create, resolve
    *SESSION_CONTEXT_METHODS.values(),  # context, compact (the RPC face of /context and /compact)
    *WORKSPACE_METHODS.values(),  # workspace.read, workspace.write
    *CATALOG_METHODS.values(),  # agents.get, commands.list
    *APPROVAL_METHODS.values(),  # exec.approval.list, exec.approval.resolve
)
"""The core's RPC methods; `Gateway.use` adds each capability's after these."""
