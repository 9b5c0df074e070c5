"""The operator's reads and actions OpenClaw's CLI asks a gateway for, answered from what claw has, in
OpenClaw's shapes (`OPERATOR_METHODS`, part of the core's methods; scopes in claw/protocol/scopes.py):

- `logs.tail`: the gateway's own log file (`<data dir>/logs/gateway.log`), from a byte `cursor`.
- `diagnostics.stability`: claw keeps no diagnostic event recorder, so no events; the process's memory.
- `doctor.memory.status`: whether the memory index has an embedding model (not probed).
- `node.list`, `node.describe`, `node.pair.list`: claw has no nodes (it serves operators only): none.
- `openclaw.approval.list`: OpenClaw's system-agent approvals, which claw does not have: none.
- `approval.get`, `approval.resolve`: OpenClaw's kind-agnostic approvals over claw's exec questions.
- `wake`: text as a system event into an agent's main session (a turn, as `agent` runs one).
- `secrets.reload`: claw reads secrets where it uses them (environment, config), so there is nothing
  cached to reload: it says so, `{ok: true, warningCount: 0}`.

Params are OpenClaw's closed objects (`ClosedParams`): an unknown key is refused in OpenClaw's words.
"""

from __future__ import annotations

import asyncio
import resource
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from claw.api.method import RpcMethod, table
from claw.api.params import ClosedParams, takes
from claw.api.session_rows import now_ms
from claw.errors import NotFoundError, UsageError
from claw.protocol.scopes import ADMIN, APPROVALS, PAIRING, READ, WRITE
from claw.tools.exec_approvals import DECISIONS
from claw.vocab.msg_context import MsgContext

if TYPE_CHECKING:
    from claw.api.host import ApiHost

LOG_TAIL_MAX_BYTES = 1_000_000
JsonObject = dict[str, Any]


class LogsTailParams(ClosedParams):
    cursor: int | None = Field(None, ge=0)
    limit: int | None = Field(None, ge=1, le=5000)
    max_bytes: int | None = Field(None, ge=1, le=LOG_TAIL_MAX_BYTES)


class StabilityParams(ClosedParams):
    limit: int | None = Field(None, ge=1, le=1000)
    type: str | None = None
    since_seq: int | None = Field(None, ge=0)


class MemoryStatusParams(ClosedParams):
    probe: bool | None = None
    agent_id: str | None = None


class NodeListParams(ClosedParams):
    pass


class NodeDescribeParams(ClosedParams):
    node_id: str = Field(min_length=1)


class ApprovalListParams(ClosedParams):
    pass


class ApprovalGetParams(ClosedParams):
    id: str = Field(min_length=1)


class ApprovalResolveParams(ClosedParams):
    id: str = Field(min_length=1)
    kind: str | None = None
    decision: str = Field(min_length=1)
    grant_expires_in_days: int | None = None


class WakeParams(ClosedParams):
    text: str = Field(min_length=1)
    mode: Literal["now", "next-heartbeat"] = "now"
    session_key: str | None = None
    agent_id: str | None = None


class SecretsReloadParams(ClosedParams):
    pass


@takes(LogsTailParams)
async def logs_tail(gw: ApiHost, params: LogsTailParams) -> JsonObject:
    """The log's lines from byte `cursor` (the last `maxBytes` when absent), at most `limit`; `cursor` back
    for the next call. A cursor past the end (the file rotated) starts again from the top: `reset`."""
    path = gw.paths.logs_dir / "gateway.log"
    max_bytes = params.max_bytes or 250_000

    def read() -> JsonObject:
        if not path.exists():
            return {"file": str(path), "cursor": 0, "size": 0, "lines": [], "truncated": False, "reset": False}
        size = path.stat().st_size
        reset = params.cursor is not None and params.cursor > size
        start = max(0, size - max_bytes) if params.cursor is None or reset else params.cursor
        with path.open("rb") as f:
            f.seek(start)
            chunk = f.read(max_bytes)
        truncated = start > 0 and params.cursor is None
        lines = chunk.decode("utf-8", "replace").splitlines()
        if truncated and lines:
            lines = lines[1:]  # the first is cut
        if params.limit is not None:
            truncated = truncated or len(lines) > params.limit
            lines = lines[-params.limit :]
        return {"file": str(path), "cursor": start + len(chunk), "size": size, "lines": lines,
                "truncated": truncated, "reset": reset}  # fmt: skip

    return await asyncio.to_thread(read)


@takes(StabilityParams)
async def diagnostics_stability(gw: ApiHost, params: StabilityParams) -> JsonObject:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return {
        "generatedAt": now_ms(),
        "capacity": 0,
        "count": 0,
        "dropped": 0,
        "firstSeq": None,
        "lastSeq": None,
        "events": [],
        "summary": {"byType": {}, "memory": {"latest": {"rssBytes": rss}, "maxRssBytes": rss, "pressureCount": 0}},
    }


@takes(MemoryStatusParams)
async def doctor_memory_status(gw: ApiHost, params: MemoryStatusParams) -> JsonObject:
    """The memory index's embeddings as OpenClaw's doctor reads them: configured (`ok`) or keyword-only,
    with the last indexing error; never probed here (`checked: false`), as OpenClaw's `probe: false`."""
    agent_id = params.agent_id or "main"
    status = await gw.call_method("memory.status", {"agentId": agent_id})
    embeddings = status["embeddings"]
    embedding: JsonObject = {"ok": bool(embeddings["enabled"]) and not embeddings.get("error"), "checked": False}
    if not embeddings["enabled"]:
        embedding["error"] = "no embeddings model configured (memory.embeddings.model): keyword search only"
    elif embeddings.get("error"):
        embedding["error"] = embeddings["error"]
    return {"agentId": agent_id, "provider": embeddings.get("provider"), "embedding": embedding}


@takes(NodeListParams)
async def node_list(gw: ApiHost, params: NodeListParams) -> JsonObject:
    return {"ts": now_ms(), "nodes": []}


@takes(NodeDescribeParams)
async def node_describe(gw: ApiHost, params: NodeDescribeParams) -> JsonObject:
    raise NotFoundError(f"unknown nodeId: {params.node_id} (claw serves no nodes)")


@takes(NodeListParams)
async def node_pair_list(gw: ApiHost, params: NodeListParams) -> JsonObject:
    return {"pending": [], "paired": []}


@takes(ApprovalListParams)
async def openclaw_approval_list(gw: ApiHost, params: ApprovalListParams) -> list[JsonObject]:
    return []


def _approval(gw: ApiHost, approval_id: str) -> JsonObject:
    for request in gw.approvals.pending():
        if request.id == approval_id:
            return {
                "id": request.id,
                "status": "pending",
                "presentation": {"kind": "exec", "allowedDecisions": sorted(DECISIONS), "command": request.command},
                "request": {
                    "command": request.command,
                    "cwd": request.cwd,
                    "agentId": request.agent_id,
                    "sessionKey": request.session_key,
                    "reason": request.reason,
                },  # fmt: skip
            }
    raise NotFoundError(f"approval not found: {approval_id}")


@takes(ApprovalGetParams)
async def approval_get(gw: ApiHost, params: ApprovalGetParams) -> JsonObject:
    return {"approval": _approval(gw, params.id)}


@takes(ApprovalResolveParams)
async def approval_resolve(gw: ApiHost, params: ApprovalResolveParams) -> JsonObject:
    approval = _approval(gw, params.id)
    if params.kind not in (None, "exec"):
        raise UsageError(f"approval {params.id} is an exec approval, not {params.kind}")
    if params.decision not in DECISIONS:
        raise UsageError(f"invalid decision {params.decision!r}: use one of {', '.join(sorted(DECISIONS))}")
    if params.grant_expires_in_days is not None:
        raise UsageError("claw's allow-always does not expire: grantExpiresInDays is not served")
    applied = gw.approvals.resolve(params.id, params.decision)  # type: ignore[arg-type]
    resolved = {**approval, "status": "resolved", "decision": params.decision, "resolver": {"kind": "operator"}}
    return {"applied": applied, "approval": resolved}


@takes(WakeParams)
async def wake(gw: ApiHost, params: WakeParams) -> JsonObject:
    """A system event into the agent's main session: a turn on `text`, recorded and shown to the model as a
    system event, not as the owner's words. claw runs
    no heartbeats, so `next-heartbeat` (OpenClaw's default) is served as `now`."""
    ctx = MsgContext(
        body=params.text,  # the model sees it marked as a system event (see the context assembly)
        channel="system",
        agent_id=params.agent_id or "main",
        session_key=params.session_key or f"agent:{params.agent_id or 'main'}:main",
        command_authorized=False,  # an event's text is never a slash command
        system_event=True,  # recorded as a system entry of the session, not as the owner speaking
    )
    result = await gw.dispatch(ctx)
    return {"ok": True, **({"runId": result.run_id} if result.run_id else {})}


@takes(SecretsReloadParams)
async def secrets_reload(gw: ApiHost, params: SecretsReloadParams) -> JsonObject:
    return {"ok": True, "warningCount": 0}


OPERATOR_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("logs.tail", READ, logs_tail),
    RpcMethod("diagnostics.stability", READ, diagnostics_stability),
    RpcMethod("doctor.memory.status", READ, doctor_memory_status),
    RpcMethod("node.list", READ, node_list),
    RpcMethod("node.describe", READ, node_describe),
    RpcMethod("node.pair.list", PAIRING, node_pair_list),
    RpcMethod("openclaw.approval.list", APPROVALS, openclaw_approval_list),
    RpcMethod("approval.get", APPROVALS, approval_get),
    RpcMethod("approval.resolve", APPROVALS, approval_resolve),
    RpcMethod("wake", WRITE, wake),
    RpcMethod("secrets.reload", ADMIN, secrets_reload),
)
