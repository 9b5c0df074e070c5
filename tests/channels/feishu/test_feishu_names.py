"""Senders' display names from the contact API, over the long connection and the webhook: looked up once per
sender and cached (a sender the app may not see too, so a missing scope is not one call per message), off
with `senderNames = false`; and the name shows where a pairing request is listed."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.channels.conftest import Start, eventually
from tests.channels.feishu.test_feishu_channel import deliver, started
from tests.channels.feishu.test_feishu_ws import connected, push
from tests.channels.feishu_fake import FakeFeishuWs, message_event
from tests.support.fixtures import ClawEnv


@pytest.fixture
def feishu() -> Iterator[FakeFeishuWs]:
    fake = FakeFeishuWs()
    fake.users["ou_ada"] = "Ada Lovelace"
    fake.start()
    yield fake
    fake.stop()


def names(rows: list[dict[str, object]]) -> list[object]:
    return [json.loads(str(r["ctx"]))["sender_name"] for r in rows]


async def test_names_are_looked_up_once_per_sender_over_the_long_connection(
    start_channels: Start, feishu: FakeFeishuWs, claw_env: ClawEnv
) -> None:
    ch = await connected(start_channels, feishu, allowFrom=["ou_ada", "ou_bo"])
    for n, sender in enumerate(["ou_ada", "ou_bo", "ou_ada", "ou_bo"]):
        await push(feishu, message_event(f"message {n}", sender=sender))
    await eventually(lambda: len(feishu.replies()) == 4, what="four replies")
    await ch.settled()
    assert names(ch.rows("channel_inbox")) == ["Ada Lovelace", None, "Ada Lovelace", None]
    lookups = sorted(c.path for c in feishu.calls_to("contact/v3/users/"))
    assert lookups == ["contact/v3/users/ou_ada?user_id_type=open_id", "contact/v3/users/ou_bo?user_id_type=open_id"]


async def test_a_webhook_message_gets_its_name_and_pairing_shows_it(
    start_channels: Start, feishu: FakeFeishuWs, claw_env: ClawEnv
) -> None:
    ch = await started(start_channels, feishu)  # dmPolicy "pairing", nobody allowed yet
    assert (await deliver(ch, message_event("let me in", sender="ou_ada")))[1]["status"] == "accepted"
    await ch.settled()
    (pending,) = (await ch.call("pairing.list"))["pending"]
    assert (pending["senderId"], pending["senderName"]) == ("ou_ada", "Ada Lovelace")


async def test_sender_names_off_means_no_contact_calls(start_channels: Start, feishu: FakeFeishuWs) -> None:
    ch = await connected(start_channels, feishu, allowFrom=["ou_ada"], senderNames=False)
    await push(feishu, message_event("hello", sender="ou_ada"))
    await eventually(feishu.replies, what="the reply")
    await ch.settled()
    assert names(ch.rows("channel_inbox")) == [None] and feishu.calls_to("contact/") == []
