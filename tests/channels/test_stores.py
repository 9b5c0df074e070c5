"""gateway.db's channel tables on a real file: pairing codes, the outbox state machine, the inbox's UNIQUE key."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

from claw.channels import inbox, outbox, pairing
from claw.channels.adapter import ChannelLimits
from claw.channels.delivery import backoff, resend_safe
from claw.channels.inbound import Inbound
from claw.channels.schema import MIGRATIONS
from claw.errors import NotFoundError, UsageError
from claw.settings.channels import OutboxSettings
from claw.store.db import Database
from claw.vocab.msg_context import MsgContext


@pytest.fixture
def db(tmp_path: Path) -> Database:
    return Database(tmp_path / "gateway.db", MIGRATIONS)


def test_codes_use_the_unambiguous_alphabet_and_a_sender_keeps_one_code(db: Database) -> None:
    first, created = db.write(lambda c: pairing.request_code(c, "telegram", "default", "9", "Eve", 1000.0))
    again, created_again = db.write(lambda c: pairing.request_code(c, "telegram", "default", "9", "Eve", 1001.0))
    assert created and not created_again and first == again
    assert first is not None and len(first.code) == 8 and set(first.code) <= set(pairing.ALPHABET)
    assert not set(pairing.ALPHABET) & set("0O1I")
    assert first.expires_at == 1000.0 + 3600


def test_approving_moves_the_sender_to_the_allowed_and_expired_codes_are_unknown(db: Database) -> None:
    req, _ = db.write(lambda c: pairing.request_code(c, "telegram", "default", "9", None, 1000.0))
    assert req is not None
    with pytest.raises(NotFoundError, match="unknown or expired pairing code"):
        db.write(lambda c: pairing.approve(c, "telegram", req.code, 1000.0 + 3601))
    with pytest.raises(NotFoundError, match="unknown or expired pairing code"):
        db.write(lambda c: pairing.approve(c, "webhook", req.code, 1001.0))  # another channel's code
    done = db.write(lambda c: pairing.approve(c, "telegram", req.code.lower(), 1001.0))
    assert done.sender_id == "9" and db.read(lambda c: pairing.is_approved(c, "telegram", "default", "9"))
    assert db.read(lambda c: pairing.pending(c, 1002.0)) == []


def test_expired_requests_free_their_place(db: Database) -> None:
    for sender in "abc":
        db.write(lambda c, s=sender: pairing.request_code(c, "telegram", "default", s, None, 1000.0))
    assert db.write(lambda c: pairing.request_code(c, "telegram", "default", "d", None, 1000.0)) == (None, False)
    later, created = db.write(lambda c: pairing.request_code(c, "telegram", "default", "d", None, 1000.0 + 3600))
    assert created and later is not None


def test_concurrent_requests_never_exceed_three_pending(tmp_path: Path) -> None:
    path = tmp_path / "gateway.db"
    Database(path, MIGRATIONS).close()
    results: list[bool] = []

    def ask(sender: int) -> None:
        conn = Database(path, MIGRATIONS)  # its own connection, as another process would have
        try:
            _req, created = conn.write(lambda c: pairing.request_code(c, "telegram", "default", str(sender), None, 5.0))
            results.append(created)
        finally:
            conn.close()

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(results) == 3
    assert len(Database(path, MIGRATIONS).read(lambda c: pairing.pending(c, 6.0))) == 3


def _item(key: str) -> Inbound:
    ctx = MsgContext(body="hi", channel="webhook", account_id="ci", message_id=key)
    return Inbound(ctx, f"webhook|ci|{key}", "webhook|ci|c", {"conversationId": "c"})


def test_the_inbox_stores_a_dedupe_key_once_and_recovers_interrupted_rows(db: Database) -> None:
    assert db.write(lambda c: inbox.insert(c, _item("e1"), 1.0)) == 1
    assert db.write(lambda c: inbox.insert(c, _item("e1"), 2.0)) is None
    db.write(lambda c: inbox.claim(c, 1, 3.0))
    assert db.read(lambda c: inbox.pending(c)) == []
    assert db.write(lambda c: inbox.recover(c, 4.0)) == 1
    (row,) = db.read(lambda c: inbox.pending(c))
    assert row.attempts == 1 and row.ctx.message_id == "e1" and row.reply_to == {"conversationId": "c"}


def _queue(db: Database, conversation: str, parts: list[str], **kw: object) -> int:
    return db.write(
        lambda c: outbox.enqueue(c, channel="telegram", account_id="default", conversation=conversation,
                                 target={"chat_id": 1}, parts=parts, now=10.0, **kw)  # type: ignore[arg-type]
    )  # fmt: skip


def test_rows_go_out_in_order_per_conversation_and_resume_at_the_first_unsent_part(db: Database) -> None:
    a1, b1, a2 = _queue(db, "a", ["1", "2", "3"]), _queue(db, "b", ["x"]), _queue(db, "a", ["y"])
    assert [r.id for r in db.read(lambda c: outbox.due(c, 10.0, 10))] == [a1, b1]  # a2 waits behind a1
    assert [r.id for r in db.read(lambda c: outbox.due(c, 10.0, 10, ("a",)))] == [b1]
    db.write(lambda c: outbox.start_attempt(c, a1, 11.0))
    assert db.write(lambda c: outbox.part_sent(c, a1, 0, "m1", 11.0)) is False
    row = db.read(lambda c: outbox.get(c, a1))
    assert (row.status, row.next_part, row.message_ids) == ("queued", 1, ["m1"])
    db.write(lambda c: outbox.failed(c, a1, "HTTP 502", 20.0, 12.0))
    assert [r.id for r in db.read(lambda c: outbox.due(c, 15.0, 10))] == [b1]  # a1 backs off; a2 still waits
    assert db.read(lambda c: outbox.next_due_at(c, ("b",))) == 20.0
    db.write(lambda c: outbox.part_sent(c, a1, 1, "m2", 21.0))
    assert db.write(lambda c: outbox.part_sent(c, a1, 2, "m3", 21.0)) is True
    row = db.read(lambda c: outbox.get(c, a1))
    assert (row.status, row.message_ids, row.attempts) == ("sent", ["m1", "m2", "m3"], 0)
    assert [r.id for r in db.read(lambda c: outbox.due(c, 21.0, 10))] == [b1, a2]


def test_recovery_resends_only_what_is_safe_to_send_twice(db: Database) -> None:
    plain, edit, hook = _queue(db, "a", ["1"]), _queue(db, "b", ["1"], edit_message_id="77"), _queue(db, "c", ["1"])
    for row_id in (plain, edit, hook):
        db.write(lambda c, r=row_id: outbox.start_attempt(c, r, 11.0))
    telegram = type("T", (), {"limits": ChannelLimits(4096, True, False)})()
    webhook = type("W", (), {"limits": ChannelLimits(4096, False, True)})()
    adapters = {"a": telegram, "b": telegram, "c": webhook}
    requeued, unknown = db.write(lambda c: outbox.recover(c, lambda r: resend_safe(adapters[r.conversation], r), 12.0))
    assert (requeued, unknown) == (2, 1)
    assert db.read(lambda c: outbox.get(c, plain)).status == "unknown_after_send"
    assert db.read(lambda c: outbox.get(c, edit)).status == "queued"
    assert db.read(lambda c: outbox.get(c, hook)).status == "queued"
    assert [r.id for r in db.read(lambda c: outbox.listing(c))] == [plain, edit, hook]
    revived = db.write(lambda c: outbox.retry(c, plain, 13.0))
    assert revived.status == "queued" and revived.attempts == 0
    db.write(lambda c: outbox.part_sent(c, plain, 0, None, 14.0))
    with pytest.raises(UsageError, match="was sent already"):
        db.write(lambda c: outbox.retry(c, plain, 15.0))


def test_backoff_grows_exponentially_with_jitter_and_honours_retry_after() -> None:
    random.seed(7)
    settings = OutboxSettings(base_delay_seconds=2, max_delay_seconds=60)
    for attempt, ceiling in ((1, 2), (2, 4), (3, 8), (6, 60), (12, 60)):
        delays = [backoff(attempt, settings) for _ in range(200)]
        assert ceiling / 2 <= min(delays) and max(delays) <= ceiling and len(set(delays)) > 100
    assert backoff(1, settings, retry_after=30) >= 30
    assert backoff(1, settings, retry_after=0.5) >= 1  # never less than the backoff either
