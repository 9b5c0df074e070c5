"""A streaming reply reaches the transcript every few KB or about once a second, and never after it ended."""

from __future__ import annotations

import asyncio
from pathlib import Path

from claw.agent.partial_reply import PartialReply
from claw.store.transcript import Transcript
from claw.store.turn_state import open_turn
from claw.transcript_entries import PARTIAL
from tests.support.waiting import deadline


def _partials(transcript: Transcript) -> list[dict]:
    return [e for e in transcript.read() if e.get("type") == PARTIAL]


async def test_a_reply_that_ends_quickly_writes_no_partial(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "s.jsonl")
    partial = PartialReply(transcript, "r1", interval=30.0, max_chars=4096)
    for word in ("a short ", "reply"):
        partial.add(word)
    partial.close()
    assert _partials(transcript) == []


async def test_every_few_kb_the_text_so_far_is_saved(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "s.jsonl")
    transcript.append({"role": "user", "content": "long one", "runId": "r1"})
    partial = PartialReply(transcript, "r1", interval=30.0, max_chars=1000)
    reply = "".join(f"{n:04d}" * 75 for n in range(10))  # 10 pieces of 300 characters
    for n in range(10):
        partial.add(reply[n * 300 : (n + 1) * 300])
    saved = _partials(transcript)
    assert [(p["offset"], len(p["text"])) for p in saved] == [(0, 1200), (1200, 1200)]
    assert partial.saved_chars == 2400
    found = open_turn(transcript.read())
    assert found is not None and found.partial == reply[:2400]  # what a repair would keep


async def test_a_slow_reply_is_saved_after_the_interval_without_another_piece(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "s.jsonl")
    partial = PartialReply(transcript, "r1", interval=0.05, max_chars=4096)
    partial.add("one word, then the model stalls")
    async with deadline(5, "the timed save"):
        while not _partials(transcript):  # the save runs on this loop's timer
            await asyncio.sleep(0.01)
    assert [p["text"] for p in _partials(transcript)] == ["one word, then the model stalls"]
    partial.add(" and resumes")
    async with deadline(5, "the second timed save"):
        while len(_partials(transcript)) < 2:
            await asyncio.sleep(0.01)
    assert _partials(transcript)[1]["offset"] == len("one word, then the model stalls")
    partial.close()


async def test_nothing_is_saved_after_close(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "s.jsonl")
    partial = PartialReply(transcript, "r1", interval=0.02, max_chars=10)
    partial.add("waiting")  # under max_chars: the timer is armed
    partial.close()  # the reply's own entry is written now
    partial.add("0123456789 more than max_chars")
    partial.save()
    later = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(0.1, later.set_result, None)  # well after the cancelled timer was due
    await later
    assert _partials(transcript) == []
