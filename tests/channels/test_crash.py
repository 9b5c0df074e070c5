"""kill -9 of a real `claw gateway run` at the channels' crash points (CLAW_FAULT), then a restart on the same
state: nothing lost (every accepted message gets exactly one reply), nothing doubled (no second turn, no blind
resend)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.channels import crash_support
from tests.channels.conftest import HOOK_SECRET, telegram_config, webhook_config
from tests.channels.crash_support import settled, start
from tests.channels.fakes import Call, FakeTelegram, ReplyReceiver, post_signed, private_message
from tests.channels.processes import GatewayProc, claw, rows, wait_until
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

EVENT = {"eventId": "evt-1", "conversationId": "conv-1", "senderId": "u1", "text": "hello"}

procs = crash_support.procs  # the fixture


def test_killed_after_the_inbox_commit_before_the_ack_the_retry_is_a_duplicate(
    claw_env: ClawEnv, procs: list[GatewayProc], receiver: ReplyReceiver
) -> None:
    config = webhook_config(receiver.reply_url)
    first = start(claw_env, procs, config, fault="inbox.after_commit_before_ack")
    with pytest.raises(OSError):  # the sender sees the connection die: no 2xx, so it will retry
        post_signed(f"{first.http_url}/hooks/ci", HOOK_SECRET, EVENT)
    first.wait_killed()
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["pending"]
    second = start(claw_env, procs, config)
    assert post_signed(f"{second.http_url}/hooks/ci", HOOK_SECRET, EVENT) == (200, {"ok": True, "status": "duplicate"})
    settled(claw_env)
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["done"]
    assert [r["status"] for r in rows(claw_env.home, "channel_outbox")] == ["sent"]
    assert len(receiver.received) == 1 and len(claw_env.server.chat_requests) == 1


def test_killed_between_inbox_write_and_processing_the_message_is_processed_once_after_restart(
    claw_env: ClawEnv, procs: list[GatewayProc], telegram: FakeTelegram
) -> None:
    config = telegram_config(telegram.api_base, allowFrom=[42])
    first = start(claw_env, procs, config, fault="inbox.before_process")
    update_id = telegram.push(private_message("are you there?", user_id=42))
    first.wait_killed()
    assert claw_env.server.chat_requests == [] and telegram.calls_of("sendMessage") == []
    polls = len(telegram.calls_of("getUpdates"))
    start(claw_env, procs, config)

    def restarted() -> list[Call]:
        return telegram.calls_of("getUpdates")[polls:]

    telegram.wait_until(lambda: any(c.params["offset"] > update_id for c in restarted()), what="a poll past the update")
    settled(claw_env)  # anything a poll stored is in the inbox by now: all of it processed, the reply sent
    assert restarted()[0].params["offset"] == update_id + 1
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["done"]
    assert [r["status"] for r in rows(claw_env.home, "channel_outbox")] == ["sent"]
    assert len(claw_env.server.chat_requests) == 1 and len(telegram.calls_of("sendMessage")) == 1


def test_killed_after_telegram_took_the_reply_it_is_not_resent_blindly(
    claw_env: ClawEnv, procs: list[GatewayProc], telegram: FakeTelegram
) -> None:
    config = telegram_config(telegram.api_base, allowFrom=[42])
    first = start(claw_env, procs, config, fault="outbox.after_send_before_ack")
    telegram.push(private_message("hi", user_id=42))
    first.wait_killed()
    assert len(telegram.calls_of("sendMessage")) == 1
    start(claw_env, procs, config)
    (row,) = wait_until(lambda: json.loads(claw(claw_env.env, "outbox", "ls", "--json").stdout), what="the row")
    assert row["status"] == "unknown_after_send" and "may have arrived" in row["lastError"]
    wait_until(lambda: len(telegram.calls_of("getUpdates")) > 3, what="the restarted gateway polling")
    assert len(telegram.calls_of("sendMessage")) == 1 and len(claw_env.server.chat_requests) == 1
    table = claw(claw_env.env, "outbox", "ls")
    assert table.returncode == 0 and "unknown_after_send" in table.stdout
    retried = claw(claw_env.env, "outbox", "retry", str(row["id"]))  # the operator decides to send it again
    assert retried.returncode == 0 and "goes out now" in retried.stdout, retried.stderr
    telegram.wait_calls("sendMessage", 2)


def test_killed_after_the_webhook_reply_was_taken_the_resend_carries_the_same_idempotency_key(
    claw_env: ClawEnv, procs: list[GatewayProc], receiver: ReplyReceiver
) -> None:
    config = webhook_config(receiver.reply_url)
    first = start(claw_env, procs, config, fault="outbox.after_send_before_ack")
    assert post_signed(f"{first.http_url}/hooks/ci", HOOK_SECRET, EVENT)[0] == 200
    first.wait_killed()
    start(claw_env, procs, config)
    wait_until(lambda: rows(claw_env.home, "channel_outbox")[0]["status"] == "sent", what="sent")
    keys = [r.body["idempotencyKey"] for r in receiver.received]
    assert len(keys) == 2 and len(set(keys)) == 1  # resent, and the receiver can tell it is the same reply
    assert len(receiver.unique()) == 1 and len(claw_env.server.chat_requests) == 1


def test_killed_between_parts_the_reply_resumes_at_the_next_part(
    claw_env: ClawEnv, procs: list[GatewayProc], telegram: FakeTelegram
) -> None:
    paragraphs = [f"Part {n}: " + "blah " * 700 for n in (1, 2, 3)]  # ~3,500 chars each: one message each
    claw_env.server.script(text("\n\n".join(paragraphs)))
    config = telegram_config(telegram.api_base, allowFrom=[42])
    first = start(claw_env, procs, config, fault="outbox.between_parts")
    telegram.push(private_message("long one", user_id=42))
    first.wait_killed()
    assert len(telegram.calls_of("sendMessage")) == 1
    start(claw_env, procs, config)
    telegram.wait_calls("sendMessage", 3)
    wait_until(lambda: rows(claw_env.home, "channel_outbox")[0]["status"] == "sent", what="sent")
    texts = [c.params["text"] for c in telegram.calls_of("sendMessage")]
    assert [t.split(":")[0] for t in texts] == ["Part 1", "Part 2", "Part 3"]
    assert len(claw_env.server.chat_requests) == 1


def test_pairing_and_channels_through_the_cli_and_a_running_gateway(
    claw_env: ClawEnv, procs: list[GatewayProc], telegram: FakeTelegram
) -> None:
    start(claw_env, procs, telegram_config(telegram.api_base))
    telegram.push(private_message("hello", user_id=7, first_name="Grace"))
    telegram.wait_calls("sendMessage", 1)
    listed = claw(claw_env.env, "pairing", "ls", "--json")
    (pending,) = json.loads(listed.stdout)["pending"]
    shown = claw(claw_env.env, "pairing", "ls", "telegram")
    assert pending["code"] in shown.stdout and "Grace" in shown.stdout
    wrong = claw(claw_env.env, "pairing", "approve", "telegram", "ZZZZZZZZ")
    assert wrong.returncode == 1 and wrong.stderr.strip().startswith("claw: unknown or expired pairing code")
    done = claw(claw_env.env, "pairing", "approve", "telegram", pending["code"])
    assert done.returncode == 0 and done.stdout.strip() == "Approved telegram/default sender 7 (Grace)."
    telegram.push(private_message("hello again", user_id=7))
    telegram.wait_calls("sendMessage", 2)
    assert len(claw_env.server.chat_requests) == 1
    ls = claw(claw_env.env, "channels", "ls")
    assert ls.returncode == 0 and "telegram  default  polling  pairing" in ls.stdout
    status = claw(claw_env.env, "channels", "status")
    assert "telegram/default: running" in status.stdout and "last poll:" in status.stdout


def test_channel_commands_without_a_gateway_and_with_a_bad_config(claw_env: ClawEnv, tmp_path: Path) -> None:
    (claw_env.home / "config.toml").write_text(webhook_config("http://127.0.0.1:9/replies"), encoding="utf-8")
    status = claw(claw_env.env, "channels", "status", "--json")
    (account,) = json.loads(status.stdout)["accounts"]
    assert account["state"] == "not running" and account["channel"] == "webhook"
    assert claw(claw_env.env, "outbox", "ls").stdout.startswith("The outbox is empty")
    missing = claw(claw_env.env, "outbox", "retry", "99")
    assert missing.returncode == 1 and missing.stderr.strip() == "claw: no outbox entry 99 (see `claw outbox ls`)"
    (claw_env.home / "config.toml").write_text('[channels.telegram]\nbotToken = "x"\ndmPolicy = "open"\n')
    bad = claw(claw_env.env, "channels", "ls")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().endswith(
        'channels.telegram: dmPolicy "open" needs allowFrom = ["*"] (or use "pairing" / "allowlist")'
    )
