"""Slack's Events API end to end against the fake Slack: signed events POSTed to `/slack/<account>` on the
gateway's port (bad and stale signatures refused, `url_verification` answered, retries and repeated events
stored once), DMs, mentions and threads answered with `chat.postMessage` in the right place, the bot's own
messages and edits ignored, mrkdwn and splitting, streaming by `chat.update`, and a `429` waited out."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from claw.channels.adapter import VerifyError
from claw.channels.slack.adapter import SlackAdapter
from claw.errors import UsageError
from claw.settings.slack import SlackAccount
from tests.channels.conftest import Channels, Start, _toml, eventually
from tests.channels.slack_fake import (
    BOT_TOKEN,
    BOT_USER,
    SIGNING_SECRET,
    FakeSlack,
    deliver,
    mention,
    message,
    next_ts,
    sign,
)
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    fake = FakeSlack()
    fake.users["U0000042"] = {"id": "U0000042", "name": "ada", "profile": {"display_name": "Ada L", "real_name": "Ada"}}
    fake.start()
    yield fake
    fake.stop()


def slack_config(fake: FakeSlack, **extra: Any) -> str:
    lines = [f'botToken = "{BOT_TOKEN}"', f'signingSecret = "{SIGNING_SECRET}"', f'apiBaseUrl = "{fake.api_base}"']
    lines += [f"{k} = {_toml(v)}" for k, v in extra.items()]
    return "[channels.slack]\n" + "\n".join(lines) + "\n"


async def send(ch: Channels, callback: dict[str, Any], **kw: Any) -> tuple[int, Any, float]:
    return await asyncio.to_thread(deliver, f"{ch.http_url}/slack/default", callback, **kw)


async def identified(fake: FakeSlack) -> None:
    await eventually(lambda: fake.calls_of("auth.test"), what="auth.test")


async def test_a_signed_dm_gets_one_reply_after_its_commit(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Hello **Ada**"), text("again"))
    ch = await start_channels(slack_config(slack, allowFrom=["U0000042"]))
    await identified(slack)
    event = message("hi &amp; hello")
    status, answer, took = await send(ch, event)
    assert (status, answer) == (200, {"ok": True, "status": "accepted"}) and took < 3.0
    (row,) = ch.rows("channel_inbox")  # committed before the answer
    assert row["dedupe_key"] == f"slack|default|D0000042|{event['event']['ts']}"
    await eventually(lambda: slack.posts(), what="the reply")
    await ch.settled()  # nothing left to send: one reply is all there will be
    (post,) = slack.posts()
    assert post.params["channel"] == "D0000042" and post.params["text"] == "Hello *Ada*"  # mrkdwn
    assert "thread_ts" not in post.params and post.auth == f"Bearer {BOT_TOKEN}"
    prompt = claw_env.server.chat_requests[0].messages[-1]["content"]
    assert "hi & hello" in prompt
    ctx = json.loads(row["ctx"])
    assert ctx["sender_name"] == "Ada L" and ctx["chat_type"] == "direct"
    await send(ch, message("second"))
    await eventually(lambda: len(slack.posts()) >= 2, what="the second reply")
    await ch.settled()
    assert len(slack.posts()) == 2 and len(slack.calls_of("users.info")) == 1  # the name is cached
    (account,) = (await ch.call("channels.status"))["accounts"]
    assert account["channel"] == "slack" and account["state"] == "running"
    assert account["detail"] == "events at /slack/default"


# Slack's worked example in "Verifying requests from Slack"
# (https://api.slack.com/authentication/verifying-requests-from-slack, now docs.slack.dev/authentication/...): a slash
# command's form body signed at 1531420618 with the example signing secret. Made by Slack, not by the fake's `sign`.
SLACK_EXAMPLE_SECRET, SLACK_EXAMPLE_TIMESTAMP = "8f742231b10e8888abcd99yyyzzz85a5", "1531420618"
SLACK_EXAMPLE_BODY = (
    b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
    b"&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
    b"&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
    b"&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
)
SLACK_EXAMPLE_SIGNATURE = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"


def test_slacks_published_signing_example_verifies_and_the_fake_signs_alike() -> None:
    adapter = SlackAdapter("default", SlackAccount(signing_secret=SLACK_EXAMPLE_SECRET, mode="events"))
    headers = {"X-Slack-Request-Timestamp": SLACK_EXAMPLE_TIMESTAMP, "X-Slack-Signature": SLACK_EXAMPLE_SIGNATURE}
    now = int(SLACK_EXAMPLE_TIMESTAMP) + 30
    adapter.verify(headers, SLACK_EXAMPLE_BODY, now=now)  # raises VerifyError if it does not verify
    with pytest.raises(VerifyError, match="invalid signature"):
        adapter.verify(headers, SLACK_EXAMPLE_BODY.replace(b"foobar", b"foobaz"), now=now)
    assert sign(SLACK_EXAMPLE_BODY, SLACK_EXAMPLE_TIMESTAMP, SLACK_EXAMPLE_SECRET) == SLACK_EXAMPLE_SIGNATURE


async def test_bad_and_stale_signatures_are_refused_and_url_verification_answered(
    start_channels: Start, slack: FakeSlack
) -> None:
    ch = await start_channels(slack_config(slack, allowFrom=["U0000042"]))
    challenge = {"token": "x", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
                 "type": "url_verification"}  # fmt: skip
    assert (await send(ch, challenge))[:2] == (200, {"challenge": challenge["challenge"]})
    assert (await send(ch, message("x"), secret="not-the-secret"))[:2] == (
        401, {"ok": False, "error": "invalid signature"},
    )  # fmt: skip
    stale = await send(ch, message("x"), timestamp=time.time() - 301)  # signed correctly, but replayable
    assert stale[:2] == (401, {"ok": False, "error": "stale or missing X-Slack-Request-Timestamp"})
    future = await send(ch, message("x"), timestamp=time.time() + 400)
    assert future[0] == 401
    body_of_another = sign(b'{"other": true}', str(int(time.time())))
    assert (await send(ch, message("x"), signature=body_of_another))[0] == 401
    assert (await send(ch, message("x"), signature="v0=" + "0" * 64))[0] == 401
    assert ch.rows("channel_inbox") == []
    url = f"{ch.http_url}/slack/nope"
    assert (await asyncio.to_thread(deliver, url, message("x")))[0] == 404


async def test_retries_and_repeated_events_run_no_second_turn(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("once"))
    ch = await start_channels(slack_config(slack, allowFrom=["U0000042"]) + '[channels.slack.channels."*"]\n')
    await identified(slack)
    event = mention("are you there?")
    assert (await send(ch, event))[:2] == (200, {"ok": True, "status": "accepted"})
    assert (await send(ch, event, retry_num=1))[:2] == (200, {"ok": True, "status": "duplicate"})
    as_message = message(event["event"]["text"], channel="C0000555", channel_type="channel", ts=event["event"]["ts"])
    assert (await send(ch, as_message))[1]["status"] == "duplicate"  # the same message as `message.channels`
    await eventually(lambda: slack.posts(), what="the reply")
    await ch.settled()
    assert [p.params["text"] for p in slack.posts()] == ["once"]
    assert len(claw_env.server.chat_requests) == 1 and len(ch.rows("channel_inbox")) == 1


async def test_mentions_threads_and_the_bots_own_messages(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("in the channel"), text("in the thread"))
    ch = await start_channels(slack_config(slack) + '[channels.slack.channels."C0000555"]\n')
    await identified(slack)
    parent = next_ts()
    events = [
        message("no mention", channel="C0000555", channel_type="channel"),
        mention("somewhere else", channel="C0000999"),
        message(f"<@{BOT_USER}> from myself", channel="C0000555", channel_type="channel", user=BOT_USER),
        message("a bot's", channel="C0000555", channel_type="channel", bot_id="B0000077", subtype="bot_message"),
        message("edited", channel="C0000555", channel_type="channel", subtype="message_changed"),
        mention("hello bot", ts=parent),
        mention("in a thread", thread_ts=parent),
    ]
    for event in events:
        assert (await send(ch, event))[0] == 200
    await eventually(lambda: len(slack.posts()) == 2, what="two replies")
    await ch.settled()
    prompts = [r.messages[-1]["content"] for r in claw_env.server.chat_requests]
    assert sorted(prompts) == ["hello bot", "in a thread"]  # the mention is stripped (two sessions: any order)
    rows = ch.rows("channel_inbox")  # the bot's own, other bots' and edits never reach the inbox
    assert [r["status"] for r in rows] == ["ignored", "ignored", "done", "done"]
    assert [r["outcome"] for r in rows][:2] == ["the bot was not mentioned", "group C0000999 is not allowlisted"]
    assert [r["session_key"] for r in rows][2:] == [
        "agent:main:slack:group:c0000555", f"agent:main:slack:group:c0000555:thread:{parent}",
    ]  # fmt: skip
    in_channel, in_thread = sorted(slack.posts(), key=lambda p: "thread_ts" in p.params)
    assert in_channel.params["channel"] == "C0000555" and "thread_ts" not in in_channel.params
    assert in_thread.params["channel"] == "C0000555" and in_thread.params["thread_ts"] == parent


async def test_channels_without_required_mentions_and_pairing_for_unknown_senders(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("no mention needed"))
    config = slack_config(slack) + '[channels.slack.channels."C0000777"]\nrequireMention = false\n'
    ch = await start_channels(config)
    await identified(slack)
    await send(ch, message("just talking", channel="C0000777", channel_type="channel"))
    await send(ch, message("let me in", user="U0000099"))  # a DM from a stranger: a pairing code, no model
    await eventually(lambda: len(slack.posts()) == 2, what="two messages")
    await send(ch, message("hello?", user="U0000099"))  # pending already: no second code
    await eventually(lambda: len(ch.rows("channel_inbox")) == 3, what="the second DM stored")
    await ch.settled()
    assert len(slack.posts()) == 2
    unknown = [c for c in slack.calls_of("users.info", ok=False) if c.params["user"] == "U0000099"]
    assert len(unknown) == 1  # Slack's "user_not_found" is an answer too: not asked again
    by_channel = {p.params["channel"]: p.params["text"] for p in slack.posts()}
    assert by_channel["C0000777"] == "no mention needed"
    (pending,) = (await ch.call("pairing.list"))["pending"]
    assert f"claw pairing approve slack {pending['code']}" in by_channel["D0000042"]
    assert pending["senderId"] == "U0000099" and len(claw_env.server.chat_requests) == 1


async def test_a_long_reply_is_split_into_messages_in_order_in_the_thread(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    paragraphs = [f"**Part {i}**: " + "lorem & ipsum " * 20 for i in range(5)]  # ~370 rendered characters each
    claw_env.server.script(text("\n\n".join(paragraphs)))
    ch = await start_channels(slack_config(slack, allowFrom=["U0000042"], maxMessageChars=1000))
    await identified(slack)
    parent = next_ts()
    await send(ch, message("write a lot", thread_ts=parent))
    await eventually(lambda: len(slack.posts()) >= 3, what="the parts")
    await ch.settled()
    parts = [p.params["text"] for p in slack.posts()]
    assert len(parts) == 3 and all(len(p) <= 1000 for p in parts)
    assert "\n\n".join(parts) == "\n\n".join(p.replace("**", "*").replace("&", "&amp;") for p in paragraphs).strip()
    assert {p.params["thread_ts"] for p in slack.posts()} == {parent}


async def test_streaming_updates_one_message_at_most_once_a_second(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    reply = "streamed <text> " * 30
    claw_env.server.script(slow(reply, delay_per_chunk=0.05, chunk=5))  # ~100 deltas over ~5 s
    ch = await start_channels(slack_config(slack, allowFrom=["U0000042"], streaming=True))
    await identified(slack)
    await send(ch, message("stream it"))
    await eventually(lambda: slack.calls_of("chat.update"), what="an update")
    await ch.settled()
    (posted,) = slack.posts()
    updates = slack.calls_of("chat.update")
    assert {(u.params["channel"], u.params["ts"]) for u in updates} == {("D0000042", posted_ts(slack))}
    assert slack.texts() == [reply.strip().replace("<", "&lt;").replace(">", "&gt;")]  # the final text stays
    times = [posted.at] + [u.at for u in updates[:-1]]  # previews; the last update is the outbox's final text
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(gaps) >= 2 and min(gaps) >= 0.9, gaps
    assert all("<" not in u.params["text"] for u in updates)  # previews are escaped too


def posted_ts(fake: FakeSlack) -> str:
    (key,) = fake.messages
    return key[1]


async def test_a_429_with_retry_after_delays_the_reply_which_arrives_once(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("after the limit"))
    ch = await start_channels(slack_config(slack, allowFrom=["U0000042"]))
    await identified(slack)
    slack.fail("chat.postMessage", 429, retry_after=1.5)
    await send(ch, message("hello"))
    await eventually(lambda: slack.posts(), what="the reply")
    await ch.settled()
    limited, delivered = slack.calls_of("chat.postMessage", ok=None)
    assert limited.status == 429 and delivered.status == 200
    assert delivered.at - limited.at >= 1.5  # Retry-After honoured (by the outbox, not the SDK)
    assert slack.texts() == ["after the limit"]
    assert [r["status"] for r in ch.rows("channel_outbox")] == ["sent"]


def test_automation_targets_are_checked() -> None:
    adapter = SlackAdapter("default", SlackAccount(bot_token="xoxb-x"))
    assert adapter.check_target("C0123ABCD") is None and adapter.check_target("U0000042") is None
    assert adapter.check_target("C0123ABCD:1700000000.000100") is None
    assert "invalid slack target" in (adapter.check_target("#general") or "")
    assert "invalid slack target" in (adapter.check_target("C0123ABCD:yesterday") or "")
    assert adapter.address("C0123ABCD:1700000000.000100") == (
        "slack|default|C0123ABCD|1700000000.000100", {"channel": "C0123ABCD", "thread_ts": "1700000000.000100"},
    )  # fmt: skip
    with pytest.raises(UsageError, match="invalid slack target"):
        adapter.address("#general")
    assert adapter.bot is None  # checked and addressed offline: the adapter never asked Slack who it is


async def test_each_account_has_its_own_url_and_signing_secret(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("from the second workspace"))
    config = (
        f'[channels.slack]\nbotToken = "{BOT_TOKEN}"\napiBaseUrl = "{slack.api_base}"\nallowFrom = ["U0000042"]\n'
        f'[channels.slack.accounts.main]\nsigningSecret = "{SIGNING_SECRET}"\n'
        '[channels.slack.accounts.w2]\nsigningSecret = "second-workspace-secret"\n'
    )
    ch = await start_channels(config)
    await eventually(lambda: len(slack.calls_of("auth.test")) == 2, what="both accounts identified")
    w2 = f"{ch.http_url}/slack/w2"
    assert (await asyncio.to_thread(deliver, w2, message("hi"), secret=SIGNING_SECRET))[0] == 401  # main's secret
    assert (await asyncio.to_thread(deliver, w2, message("hi"), secret="second-workspace-secret"))[0] == 200
    assert (await send(ch, message("x")))[0] == 404  # with accounts listed there is no `default`
    await eventually(lambda: slack.posts(), what="the reply")
    (row,) = ch.rows("channel_inbox")
    assert row["account_id"] == "w2" and row["dedupe_key"].startswith("slack|w2|")
    assert [a["accountId"] for a in await ch.call("channels.list") if a["channel"] == "slack"] == ["main", "w2"]


async def test_slash_commands_run_only_for_authorised_senders(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("just text to me"))
    ch = await start_channels(slack_config(slack, allowFrom=["U0000042"]) + '[channels.slack.channels."C0000555"]\n')
    await identified(slack)
    await send(ch, message("/status", channel="C0000555", channel_type="channel"))  # the owner, no mention needed
    await eventually(lambda: slack.posts(), what="the status reply")
    assert "Session agent:main:slack:group:c0000555" in slack.posts()[0].params["text"]
    assert claw_env.server.chat_requests == []
    await send(ch, mention("/status", user="U0000050"))  # anyone else: plain text for the model
    await eventually(lambda: len(slack.posts()) == 2, what="the model's answer")
    (request,) = claw_env.server.chat_requests
    assert request.messages[-1]["content"] == "/status"
