"""DingTalk in HTTP-callback mode, end to end against the fake platform: signed callbacks answered through the
session webhook, refusals (bad, stale, missing signature), redelivery, group mentions and access rules, the
OpenAPI fallback once a session webhook has expired, token refresh, rate limits, a long reply split in order,
and the status, doctor and automation-target checks."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from claw.automations.delivery import check_reachable, parse_delivery
from claw.channels.capability import ChannelsCapability
from claw.channels.dingtalk.doctor import check_credentials, token_test
from claw.compose import CHANNEL_PLATFORMS
from claw.config import load_config
from claw.errors import UsageError
from claw.paths import Paths
from claw.settings.dingtalk import DingTalkAccount, DingTalkSettings
from tests.channels.conftest import Channels, Start, _toml, eventually
from tests.channels.dingtalk_fake import CLIENT_ID, CLIENT_SECRET, FakeDingTalk, callback_request
from tests.channels.fakes import Recorder, post
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw


@pytest.fixture
def dingtalk() -> Iterator[FakeDingTalk]:
    fake = FakeDingTalk()
    fake.start()
    yield fake
    fake.stop()


def dingtalk_config(fake: FakeDingTalk, *, mode: str = "http", toml: str = "", **extra: Any) -> str:
    lines = [f'mode = "{mode}"', f'clientId = "{CLIENT_ID}"', f'clientSecret = "{CLIENT_SECRET}"',
             f'apiBaseUrl = "{fake.url}"']  # fmt: skip
    lines += [f"{k} = {_toml(v)}" for k, v in extra.items()]
    return "[channels.dingtalk]\n" + "\n".join([*lines, toml]) + "\n"


async def deliver(ch: Channels, message: dict[str, Any], **kw: Any) -> tuple[int, dict[str, Any]]:
    return await asyncio.to_thread(post, callback_request(f"{ch.http_url}/dingtalk/default", message, **kw))


def sent(ch: Channels) -> bool:
    rows = ch.rows("channel_outbox")
    return bool(rows) and all(r["status"] == "sent" for r in rows)


async def test_a_signed_single_chat_message_is_answered_through_its_session_webhook(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("## Hello\n\n**Ada**, see `claw help`"))
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"]))
    assert await deliver(ch, dingtalk.message("hi there")) == (200, {"ok": True, "status": "accepted"})
    await eventually(dingtalk.replies, what="the reply")
    await ch.settled()  # nothing left to send: one reply is all there will be
    (reply,) = dingtalk.replies()
    assert reply == {"via": "webhook", "to": "staff-ada", "title": "Hello",
                     "text": "## Hello\n\n**Ada**, see claw help"}  # fmt: skip
    assert claw_env.server.chat_requests[0].messages[-1]["content"] == "hi there"
    (row,) = ch.rows("channel_inbox")
    ctx = json.loads(row["ctx"])
    assert row["status"] == "done" and (ctx["chat_type"], ctx["sender_id"]) == ("direct", "staff-ada")
    assert dingtalk.calls_to("accessToken") == []  # the session webhook needs no token


async def test_bad_stale_and_missing_signatures_are_refused(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"]))
    msg = dingtalk.message("x")
    assert await deliver(ch, msg, secret="not-the-secret") == (401, {"ok": False, "error": "invalid sign"})
    stale = int(time.time() * 1000) - 3_601_000
    assert await deliver(ch, msg, timestamp_ms=stale) == (401, {"ok": False, "error": "stale or invalid timestamp"})
    future = int(time.time() * 1000) + 3_601_000
    assert (await deliver(ch, msg, timestamp_ms=future))[0] == 401
    assert await deliver(ch, msg, signed=False) == (401, {"ok": False, "error": "missing timestamp or sign"})
    bad_body = await asyncio.to_thread(post, callback_request(f"{ch.http_url}/dingtalk/default", {"msgId": "m"}))
    assert bad_body[0] == 400 and "not a DingTalk robot message" in bad_body[1]["error"]
    unknown = await asyncio.to_thread(post, callback_request(f"{ch.http_url}/dingtalk/nope", msg))
    assert unknown[0] == 404
    await ch.settled()
    assert ch.rows("channel_inbox") == [] and claw_env.server.chat_requests == []
    within = int(time.time() * 1000) - 3_000_000  # 50 minutes old: inside DingTalk's one-hour window
    assert (await deliver(ch, msg, timestamp_ms=within))[1]["status"] == "accepted"


async def test_a_redelivered_callback_runs_no_second_turn(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"]))
    msg = dingtalk.message("once please")
    assert (await deliver(ch, msg))[1]["status"] == "accepted"
    await eventually(dingtalk.replies, what="the reply")
    assert (await deliver(ch, msg))[1]["status"] == "duplicate"
    await ch.settled()
    assert len(claw_env.server.chat_requests) == 1 and len(dingtalk.replies()) == 1


async def test_an_observed_timestamp_and_sign_cannot_carry_another_message(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    """The red team's partial: one observed (timestamp, sign) pair let a forged owner message run a turn."""
    claw_env.server.script(text("answered once"))
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"]))
    stamp = int(time.time() * 1000) - 60_000
    real = dingtalk.message("what time is it?")
    assert (await deliver(ch, real, timestamp_ms=stamp))[1]["status"] == "accepted"
    await eventually(dingtalk.replies, what="the reply")
    # The pair replayed with a forged message under a new id: refused before it is stored.
    forged = dingtalk.message("run rm -rf ~", sender="staff-ada")
    replayed = (401, {"ok": False, "error": "replayed timestamp and sign"})
    assert await deliver(ch, forged, timestamp_ms=stamp) == replayed
    # The whole request replayed, or a forged text under the observed id: the inbox has that id, nothing runs.
    assert (await deliver(ch, real, timestamp_ms=stamp))[1]["status"] == "duplicate"
    same_id = {**real, "text": {"content": "run rm -rf ~"}}
    assert (await deliver(ch, same_id, timestamp_ms=stamp))[1]["status"] == "duplicate"
    await ch.settled()
    assert len(claw_env.server.chat_requests) == 1 and len(dingtalk.replies()) == 1
    assert [json.loads(r["ctx"])["body"] for r in ch.rows("channel_inbox")] == ["what time is it?"]
    # A new pair (DingTalk signs every callback afresh) still delivers the next message.
    claw_env.server.script(text("next"))
    assert (await deliver(ch, dingtalk.message("and now?")))[1]["status"] == "accepted"


async def test_group_messages_need_an_allowlisted_group_and_a_mention(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Hi team"))
    ch = await start_channels(dingtalk_config(dingtalk, toml='groups = { "cid-team" = { requireMention = true } }'))
    await deliver(ch, dingtalk.message("unlisted", conversation_type="2", conversation_id="cid-other", at=True))
    await deliver(ch, dingtalk.message("no mention", conversation_type="2", conversation_id="cid-team"))
    await deliver(ch, dingtalk.message("@Claw hello", conversation_type="2", conversation_id="cid-team", at=True,
                                       sender="staff-bo"))  # fmt: skip
    await eventually(dingtalk.replies, what="the group reply")
    await ch.settled()
    assert dingtalk.replies() == [{"via": "webhook", "to": "cid-team", "title": "Hi team", "text": "Hi team"}]
    rows = ch.rows("channel_inbox")
    assert [r["status"] for r in rows] == ["ignored", "ignored", "done"]
    assert rows[2]["session_key"] == "agent:main:dingtalk:group:cid-team"
    assert len(claw_env.server.chat_requests) == 1


async def test_an_unknown_sender_gets_a_pairing_code_and_commands_stay_text_for_the_unlisted(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    ch = await start_channels(dingtalk_config(dingtalk, toml='groups = { "*" = { requireMention = true } }'))
    await deliver(ch, dingtalk.message("hello?", sender="staff-eve"))
    (pairing,) = await eventually(dingtalk.replies, what="the pairing reply")
    assert "claw pairing approve dingtalk " in pairing["text"] and "`" not in pairing["text"]
    assert claw_env.server.chat_requests == []
    claw_env.server.script(text("a plain answer"))
    await deliver(ch, dingtalk.message("/new", conversation_type="2", conversation_id="cid-x", at=True))
    await eventually(lambda: len(dingtalk.replies()) == 2, what="the group answer")
    await ch.settled()
    assert claw_env.server.chat_requests[0].messages[-1]["content"] == "/new"  # not run as a command


async def test_an_expired_session_webhook_falls_back_to_the_robot_openapi(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    claw_env.server.default = lambda r: text(f"echo: {r.messages[-1]['content']}")
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"], toml='groups = { "*" = {} }'))
    await deliver(ch, dingtalk.message("dm", webhook_ttl_ms=-1000))  # expired before it arrived
    await deliver(ch, dingtalk.message("grp", conversation_type="2", conversation_id="cid-g", at=True,
                                       webhook_ttl_ms=30_000))  # within the margin: not used  # fmt: skip
    await eventually(lambda: len(dingtalk.replies()) == 2, what="two replies")
    late = dingtalk.message("late")
    dingtalk.expire_sessions()  # valid by the message's clock, refused by DingTalk's
    await deliver(ch, late)
    await eventually(lambda: len(dingtalk.replies()) == 3, what="the third reply")
    await ch.settled()
    got = [(r["via"], r["to"], r["text"]) for r in dingtalk.replies()]
    assert sorted(got[:2]) == [("batchSend", "staff-ada", "echo: dm"), ("groupSend", "cid-g", "echo: grp")]
    assert got[2] == ("batchSend", "staff-ada", "echo: late")
    assert len(dingtalk.calls_to("sendBySession")) == 1  # only the third tried its webhook
    assert len(dingtalk.calls_to("accessToken")) == 1  # one token, cached across the three sends
    (token_call,) = dingtalk.calls_to("accessToken")
    assert token_call.body == {"appKey": CLIENT_ID, "appSecret": CLIENT_SECRET}
    assert all(c.token for c in dingtalk.calls_to("/v1.0/robot/"))


async def test_tokens_are_renewed_before_they_expire_and_fetched_again_once_when_revoked(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    dingtalk.token_ttl = 301  # the renewal margin is 300 s: this token is "fresh" for one second
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"]))
    await deliver(ch, dingtalk.message("one", webhook_ttl_ms=0))
    await eventually(lambda: len(dingtalk.replies()) == 1, what="the first reply")
    await asyncio.sleep(1.1)
    await deliver(ch, dingtalk.message("two", webhook_ttl_ms=0))
    await eventually(lambda: len(dingtalk.replies()) == 2, what="the second reply")
    assert len(dingtalk.calls_to("accessToken")) == 2  # renewed ahead of its expiry, never used expired
    dingtalk.token_ttl = 7200
    dingtalk.revoke_tokens()  # the platform drops the token early: the next call is refused
    await deliver(ch, dingtalk.message("three", webhook_ttl_ms=0))
    await eventually(lambda: len(dingtalk.replies()) == 3, what="the third reply")
    await ch.settled()
    assert len(dingtalk.calls_to("accessToken")) == 3  # the revoked one replaced once
    assert [c.status for c in dingtalk.calls_to("batchSend")] == [200, 200, 401, 200]
    assert [r["status"] for r in ch.rows("channel_outbox")] == ["sent"] * 3


async def test_rate_limits_back_off_and_a_long_reply_arrives_split_in_order(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    paragraphs = [f"Paragraph {i}: " + "word " * 60 for i in range(12)]
    claw_env.server.script(text("\n\n".join(paragraphs)))
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"], maxMessageChars=1000))
    dingtalk.fail("/robot/sendBySession", 200, {"errcode": 130101, "errmsg": "send too fast"})
    await deliver(ch, dingtalk.message("write a lot", webhook_ttl_ms=3_600_000))
    await eventually(lambda: sent(ch), what="the reply sent")
    replies = dingtalk.replies()
    assert len(replies) > 1 and all(len(r["text"]) <= 1000 for r in replies)
    joined = " ".join(r["text"] for r in replies)
    assert [int(p.split(":")[0]) for p in joined.split("Paragraph ")[1:]] == list(range(12))
    assert all(r["via"] == "webhook" for r in replies)
    assert len(dingtalk.calls_to("sendBySession")) == len(replies) + 1  # the rate-limited try, then each part once
    claw_env.server.script(text("through the OpenAPI"))
    dingtalk.fail("oToMessages/batchSend", 429, {"code": "Throttling", "message": "too many requests"})
    await deliver(ch, dingtalk.message("and now?", webhook_ttl_ms=0))
    await eventually(lambda: len(dingtalk.replies()) == len(replies) + 1, what="the OpenAPI reply")
    await ch.settled()
    assert [c.status for c in dingtalk.calls_to("batchSend")] == [429, 200]
    assert dingtalk.replies()[-1] == {"via": "batchSend", "to": "staff-ada", "title": "through the OpenAPI",
                                      "text": "through the OpenAPI"}  # fmt: skip


async def test_status_lists_the_account_and_its_mode(start_channels: Start, dingtalk: FakeDingTalk) -> None:
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"]))
    (listed,) = await ch.call("channels.list")
    assert listed["channel"] == "dingtalk" and listed["mode"] == "http" and listed["path"] == "/dingtalk/default"
    (account,) = (await ch.call("channels.status"))["accounts"]
    assert account["state"] == "running" and account["detail"] == "http callback at /dingtalk/default"


async def test_the_doctor_checks_credentials_offline_and_online(
    dingtalk: FakeDingTalk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DINGTALK_CLIENT_SECRET", raising=False)
    settings = DingTalkSettings.model_validate(
        {"clientId": CLIENT_ID, "accounts": {"a": {}, "b": {"clientSecret": CLIENT_SECRET}}}
    )
    a, b = check_credentials(settings)
    assert (a.name, a.status) == ("dingtalk/a", "fail") and "DINGTALK_CLIENT_SECRET" in a.detail
    assert (b.name, b.status) == ("dingtalk/b", "ok") and CLIENT_SECRET not in b.detail
    good = await token_test("b", DingTalkAccount(client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                                                 api_base_url=dingtalk.url))  # fmt: skip
    assert good.status == "ok"
    bad = await token_test("b", DingTalkAccount(client_id=CLIENT_ID, client_secret="wrong", api_base_url=dingtalk.url))
    assert bad.status == "fail" and "refused" in bad.detail and "wrong" not in bad.detail


def test_automation_targets_are_checked_when_added(claw_env: ClawEnv, dingtalk: FakeDingTalk) -> None:
    (claw_env.home / "config.toml").write_text(dingtalk_config(dingtalk), encoding="utf-8")
    config = load_config(Paths.from_env())
    check_reachable(parse_delivery("dingtalk:cidAbC+12/xyz=="), config, CHANNEL_PLATFORMS)
    check_reachable(parse_delivery("dingtalk:user:staff-ada"), config, CHANNEL_PLATFORMS)
    for bad in ("dingtalk:user:", "dingtalk:has space", "dingtalk:a?b"):
        with pytest.raises(UsageError, match="invalid dingtalk target"):
            check_reachable(parse_delivery(bad), config, CHANNEL_PLATFORMS)


async def test_an_automation_message_goes_to_the_group_through_the_openapi(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    ch = await start_channels(dingtalk_config(dingtalk))
    channels = ch.gateway.capability(ChannelsCapability)
    queued = await channels.announce("dingtalk", "cid-news", "# Daily\n\n- done", "r1")
    assert queued is not None
    await eventually(dingtalk.replies, what="the announcement")
    assert dingtalk.replies() == [{"via": "groupSend", "to": "cid-news", "title": "Daily", "text": "# Daily\n\n- done"}]


def test_claw_doctor_checks_each_dingtalk_account_and_online_asks_for_a_token(
    claw_env: ClawEnv, dingtalk: FakeDingTalk
) -> None:
    assert run_claw(claw_env.env, "init").returncode == 0
    with (claw_env.home / "config.toml").open("a") as config:
        config.write(
            f'\n[channels.dingtalk]\nclientId = "{CLIENT_ID}"\napiBaseUrl = "{dingtalk.url}"\n'
            f'[channels.dingtalk.accounts.good]\nclientSecret = "{CLIENT_SECRET}"\n'
            '[channels.dingtalk.accounts.bad]\nclientSecret = "wrong-secret"\n'
        )

    def checks(*args: str) -> tuple[int, list[tuple[str, str, str]]]:
        done = run_claw(claw_env.env, "doctor", "--json", *args)
        found = json.loads(done.stdout)["checks"]
        return done.returncode, [(c["name"], c["status"], c["detail"]) for c in found if c["name"].startswith("ding")]

    code, offline = checks()
    assert code == 0 and [(n, s) for n, s, _ in offline] == [("dingtalk/good", "ok"), ("dingtalk/bad", "ok")]
    assert dingtalk.calls_to("accessToken") == []  # offline means offline
    code, online = checks("--online")
    assert code == 1 and [(n, s) for n, s, _ in online[2:]] == [("dingtalk/good", "ok"), ("dingtalk/bad", "fail")]
    assert CLIENT_SECRET not in json.dumps(online) and "wrong-secret" not in json.dumps(online)


async def test_a_session_webhook_that_is_not_dingtalks_is_never_called(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    """An HTTP callback's signature covers only its timestamp: a body naming another host must not make claw
    POST the reply there."""
    claw_env.server.script(text("to the right place"))
    elsewhere = Recorder().start()  # a real listener at the forged address: a call there would be recorded
    try:
        ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"]))
        forged = {**dingtalk.message("hi"), "sessionWebhook": f"{elsewhere.url}/robot/sendBySession?session=x"}
        await deliver(ch, forged)
        await eventually(lambda: dingtalk.replies() or elsewhere.requests, what="the reply, wherever it goes")
        await ch.settled()
        assert elsewhere.requests == []
        assert [(r["via"], r["to"]) for r in dingtalk.replies()] == [("batchSend", "staff-ada")]
    finally:
        elsewhere.stop()


async def test_an_allowed_sender_runs_commands(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    ch = await start_channels(dingtalk_config(dingtalk, allowFrom=["staff-ada"]))
    await deliver(ch, dingtalk.message("/help"))
    (reply,) = await eventually(dingtalk.replies, what="the command's answer")
    await ch.settled()
    assert "/new" in reply["text"] and claw_env.server.chat_requests == []  # answered by claw, not the model
