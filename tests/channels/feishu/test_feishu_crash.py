"""kill -9 of a real `claw gateway run` holding Feishu's long connection, at each point between the platform's
push of a message and the reply it gets, then a restart on the same state: the message is answered exactly once.

- after the inbox commit, before the ack: the platform pushes the event again to the new connection, and the
  inbox drops it as a duplicate while the stored copy is answered;
- after the ack, before the run: the stored message is answered after the restart;
- after the platform took the reply, before the outbox recorded it: the resend carries the same `uuid`, which
  the platform dedupes on, so the chat shows one reply."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.channels import crash_support
from tests.channels.crash_support import settled, start
from tests.channels.feishu_fake import APP_ID, APP_SECRET, FakeFeishuWs, message_event
from tests.channels.processes import GatewayProc, claw, rows, wait_until
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

procs = crash_support.procs  # the fixture


@pytest.fixture
def feishu() -> Iterator[FakeFeishuWs]:
    fake = FakeFeishuWs(redeliver_after=1.0)
    fake.start()
    yield fake
    fake.stop()


def config(feishu: FakeFeishuWs) -> str:
    return (
        f'[channels.feishu]\nmode = "websocket"\nappId = "{APP_ID}"\nappSecret = "{APP_SECRET}"\n'
        f'apiBaseUrl = "{feishu.url}"\nallowFrom = ["ou_ada"]\n'
    )


@pytest.mark.timeout(180)
@pytest.mark.parametrize("point", ["inbox.after_commit_before_ack", "inbox.before_process",
                                   "outbox.after_send_before_ack"])  # fmt: skip
def test_killed_mid_message_the_restarted_gateway_answers_exactly_once(
    claw_env: ClawEnv, procs: list[GatewayProc], feishu: FakeFeishuWs, point: str
) -> None:
    claw_env.server.script(text("the only answer"))
    first = start(claw_env, procs, config(feishu), fault=point)
    wait_until(lambda: feishu.connected, what="the long connection")
    item = feishu.push(message_event("are you there?", message_id="om_crash", event_id="ev_crash"))
    first.wait_killed()
    if point != "outbox.after_send_before_ack":
        assert feishu.replies() == []
    if point == "inbox.after_commit_before_ack":
        assert not item.acked and [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["pending"]
    start(claw_env, procs, config(feishu))
    wait_until(lambda: len(feishu.connects) == 2, what="the restarted gateway's connection")
    wait_until(lambda: item.acked, what="the event acked")
    wait_until(feishu.replies, what="the reply")
    settled(claw_env)
    (reply,) = feishu.replies()
    assert reply["parent"] == "om_crash" and reply["markdown"] == "the only answer"
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["done"]
    assert [r["status"] for r in rows(claw_env.home, "channel_outbox")] == ["sent"]
    assert len(claw_env.server.chat_requests) == 1  # one run: the reply is kept, never written twice
    status = claw(claw_env.env, "channels", "status").stdout
    assert "feishu/default: running — long connection: connected" in status
    assert "websocket" in claw(claw_env.env, "channels", "ls").stdout
