"""`RunHandle.from_wire`: the `agent` method's first answer, from claw's gateway or OpenClaw's, never a crash."""

from __future__ import annotations

from typing import Any

import pytest

from claw.client.protocol import RunHandle


def test_claws_accepted_answer_is_a_run_to_follow() -> None:
    handle = RunHandle.from_wire(
        {"status": "accepted", "agentId": "ops", "sessionKey": "agent:ops:main", "runId": "r1"}
    )
    assert (handle.status, handle.agent_id, handle.session_key, handle.run_id) == (
        "accepted",
        "ops",
        "agent:ops:main",
        "r1",
    )


def test_openclaws_one_final_answer_to_a_slash_command_is_its_reply() -> None:
    # OpenClaw's gateway answers `/new` with the final result at once, and no agentId, sessionKey or ack.
    final = {"runId": "idem-1", "status": "ok", "summary": "completed",
             "result": {"payloads": [{"text": "✅ New session started."}], "meta": {"durationMs": 3}}}  # fmt: skip
    handle = RunHandle.from_wire(final, agent_id="main", session_key="agent:main:main")
    assert handle.run_id is None and handle.error is None
    assert (handle.status, handle.reply, handle.session_key) == (
        "command",
        "✅ New session started.",
        "agent:main:main",
    )


def test_openclaws_failed_final_answer_is_an_error_reply() -> None:
    handle = RunHandle.from_wire({"runId": "r", "status": "error", "summary": "model unavailable"})
    assert handle.run_id is None and handle.error == "error" and handle.reply == "model unavailable"


@pytest.mark.parametrize("payload", [None, [], "ok", {"status": 3}, {"status": "accepted"}, {"what": "else"}])
def test_any_other_shape_is_shown_as_it_came(payload: Any) -> None:
    handle = RunHandle.from_wire(payload, agent_id="main", session_key="agent:main:x")
    assert handle.status == "unexpected" and handle.error == "unexpected" and handle.run_id is None
    assert handle.reply is not None and handle.reply.startswith("the gateway answered: ")
