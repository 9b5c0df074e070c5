"""kill -9 of a real `claw gateway run` between Slack's delivery of a message and the reply, then a restart on the
same state: the message is answered exactly once — by the Events API (Slack retries the unanswered request) and
by Socket Mode (Slack redelivers the unacknowledged envelope)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.channels import crash_support
from tests.channels.crash_support import settled, start
from tests.channels.processes import GatewayProc, claw, rows, wait_until
from tests.channels.slack.test_slack_events import slack_config
from tests.channels.slack.test_slack_socket import socket_config
from tests.channels.slack_fake import FakeSlack, deliver, message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

procs = crash_support.procs  # the fixture


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    fake = FakeSlack(redeliver_after=1.0)
    fake.start()
    yield fake
    fake.stop()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("point", ["webhook.before_inbox_commit", "inbox.after_commit_before_ack"])
def test_events_api_killed_around_the_commit_slacks_retry_is_answered_once(
    claw_env: ClawEnv, procs: list[GatewayProc], slack: FakeSlack, point: str
) -> None:
    claw_env.server.script(text("the only answer"))
    config = slack_config(slack, allowFrom=["U0000042"])
    first = start(claw_env, procs, config, fault=point)
    event = message("are you there?")
    with pytest.raises(OSError):  # Slack sees the connection die: no 200, so it retries
        deliver(f"{first.http_url}/slack/default", event)
    first.wait_killed()
    stored = [r["status"] for r in rows(claw_env.home, "channel_inbox")]
    assert stored == ([] if point == "webhook.before_inbox_commit" else ["pending"])
    second = start(claw_env, procs, config)
    status, answer, _ = deliver(f"{second.http_url}/slack/default", event, retry_num=1)
    assert status == 200 and answer["status"] == ("accepted" if not stored else "duplicate")
    wait_until(lambda: slack.posts(), what="the reply")
    settled(claw_env)
    assert [p.params["text"] for p in slack.posts()] == ["the only answer"]
    assert len(claw_env.server.chat_requests) == 1
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["done"]


@pytest.mark.timeout(180)
def test_socket_mode_killed_after_the_commit_before_the_ack_the_redelivery_is_a_duplicate(
    claw_env: ClawEnv, procs: list[GatewayProc], slack: FakeSlack
) -> None:
    claw_env.server.script(text("the only answer"))
    config = socket_config(slack, allowFrom=["U0000042"])
    first = start(claw_env, procs, config, fault="inbox.after_commit_before_ack")
    wait_until(lambda: slack.hellos >= 1 and slack.connected, what="a Socket Mode connection")
    envelope_id = slack.push(message("are you there?"))
    first.wait_killed()
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["pending"]
    assert slack.envelopes[envelope_id].acked_at is None  # died before the ack: Slack will send it again
    start(claw_env, procs, config)
    wait_until(lambda: slack.envelopes[envelope_id].acked_at is not None, what="the redelivery acknowledged")
    wait_until(lambda: slack.posts(), what="the reply")
    settled(claw_env)
    assert slack.envelopes[envelope_id].attempts >= 2
    (account,) = json.loads(claw(claw_env.env, "channels", "status", "--json").stdout)["accounts"]
    assert (account["channel"], account["state"], account["detail"]) == ("slack", "running", "connected (socket mode)")
    (listed,) = json.loads(claw(claw_env.env, "channels", "ls", "--json").stdout)
    assert listed["mode"] == "socket" and listed["dmPolicy"] == "pairing"
    assert [p.params["text"] for p in slack.posts()] == ["the only answer"]
    assert len(claw_env.server.chat_requests) == 1
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["done"]
