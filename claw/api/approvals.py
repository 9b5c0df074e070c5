"""`exec.approval.list` and `exec.approval.resolve`: the exec questions waiting for an answer, answered."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from claw.api.approval_rows import approval_row
from claw.api.method import RpcMethod, table
from claw.api.params import (
    NonEmptyStr,
    NoParams,
    Params,
    takes,
)
from claw.errors import NotFoundError, UsageError
from claw.protocol.scopes import APPROVALS
from claw.tools.exec_approvals import DECISIONS

if TYPE_CHECKING:
    from claw.api.host import ApiHost


class ApprovalAnswerParams(Params):
    id: NonEmptyStr = Field(description="a pending approval's id (see exec.approval.list)")
    decision: NonEmptyStr = Field(description=f"one of {', '.join(sorted(DECISIONS))}")


@takes(NoParams)
async def approval_list(gw: ApiHost, params: NoParams) -> list[dict[str, Any]]:
    """The exec questions waiting for an answer."""
    return [approval_row(request) for request in gw.approvals.pending()]


@takes(ApprovalAnswerParams)
async def approval_resolve(gw: ApiHost, params: ApprovalAnswerParams) -> dict[str, Any]:
    """Answer one exec question: `{id, decision}` with `allow-once`, `allow-always` or `deny`."""
    request_id, decision = params.id, params.decision
    if decision not in DECISIONS:  # here rather than in the model: this is the line clients already get
        raise UsageError(f"invalid decision {decision!r}: use one of {', '.join(sorted(DECISIONS))}")
    if not gw.approvals.resolve(request_id, decision):  # type: ignore[arg-type]
        raise NotFoundError(f"no pending approval {request_id} (already answered or expired)")
    return {"id": request_id, "decision": decision}


APPROVAL_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("exec.approval.list", APPROVALS, approval_list),
    RpcMethod("exec.approval.resolve", APPROVALS, approval_resolve),
)
"""The `exec.approval.*` methods, by wire name (part of `claw.api.core.CORE_METHODS`)."""
