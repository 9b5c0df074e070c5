"""kill -9 of a real `claw gateway run` between DingTalk's delivery of a message and the reply, then a restart on
the same state: in Stream mode the message was stored but never acknowledged, so DingTalk delivers it again to the
new connection and the inbox drops the repeat; in HTTP mode the callback is retried and answered `duplicate`.
Either way the message is answered exactly once."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.channels import crash_support
from tests.channels.crash_support import settled, start
from tests.channels.dingtalk.test_dingtalk_channel import dingtalk_config
from tests.channels.dingtalk_fake import FakeDingTalk, callback_request
from tests.channels.fakes import post
from tests.channels.processes import GatewayProc, claw, rows, wait_until
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

procs = crash_support.procs  # the fixture


@pytest.fixture
def dingtalk() -> Iterator[FakeDingTalk]:
    fake = FakeDingTalk()
    fake.start()
    yield fake
    fake.stop()


@pytest.mark.timeout(180)
def test_stream_killed_after_the_inbox_commit_before_the_ack_answers_once(
    claw_env: ClawEnv, procs: list[GatewayProc], dingtalk: FakeDingTalk
) -> None:
    claw_env.server.script(text("the only answer"))
    config = dingtalk_config(dingtalk, mode="stream", allowFrom=["staff-ada"])
    first = start(claw_env, procs, config, fault="inbox.after_commit_before_ack")
    wait_until(dingtalk.connected, what="the stream connection")
    message_id = dingtalk.push(dingtalk.message("are you there?"))
    first.wait_killed()
    assert dingtalk.acks == [] and message_id in dingtalk.pending
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["pending"]
    start(claw_env, procs, config)
    listed = json.loads(claw(claw_env.env, "channels", "ls", "--json").stdout)
    assert [(a["channel"], a["accountId"], a["mode"]) for a in listed] == [("dingtalk", "default", "stream")]
    wait_until(lambda: message_id not in dingtalk.pending, what="the redelivery acknowledged")
    wait_until(dingtalk.replies, what="the reply")
    settled(claw_env)
    assert dingtalk.deliveries == [message_id, message_id]
    assert [r["text"] for r in dingtalk.replies()] == ["the only answer"]
    assert len(claw_env.server.chat_requests) == 1
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["done"]


@pytest.mark.timeout(180)
def test_http_killed_after_the_inbox_commit_the_retried_callback_is_a_duplicate(
    claw_env: ClawEnv, procs: list[GatewayProc], dingtalk: FakeDingTalk
) -> None:
    claw_env.server.script(text("answered once"))
    config = dingtalk_config(dingtalk, allowFrom=["staff-ada"])
    message = dingtalk.message("hello?")
    first = start(claw_env, procs, config, fault="inbox.after_commit_before_ack")
    with pytest.raises(OSError):  # DingTalk sees the connection die: no 200, so it will retry
        post(callback_request(f"{first.http_url}/dingtalk/default", message))
    first.wait_killed()
    second = start(claw_env, procs, config)
    assert post(callback_request(f"{second.http_url}/dingtalk/default", message)) == (
        200, {"ok": True, "status": "duplicate"})  # fmt: skip
    wait_until(dingtalk.replies, what="the reply")
    settled(claw_env)
    assert [r["text"] for r in dingtalk.replies()] == ["answered once"]
    assert len(claw_env.server.chat_requests) == 1
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["done"]
