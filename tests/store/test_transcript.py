"""Transcripts: append-only JSONL that survives crashes and is cheap to re-read."""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from pathlib import Path

import pytest

from claw.store.transcript import Transcript


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}


def _raw_append(path: Path, data: bytes) -> None:
    """Write bytes behind the transcript's back, as another process or a crash would."""
    with open(path, "ab") as handle:
        handle.write(data)


def test_round_trip_adds_id_and_created_at(transcript: Transcript) -> None:
    written = transcript.append(_user("hello"))
    call = {"id": "call_1", "name": "read", "arguments": '{"path": "SOUL.md"}'}
    transcript.append({"role": "assistant", "content": "", "toolCalls": [call], "model": "m", "runId": "r1"})
    result = {"role": "tool", "toolCallId": "call_1", "name": "read", "content": "x", "isError": False}
    transcript.append(result)
    transcript.append({"type": "compaction", "summary": "s", "firstKeptId": written["id"]})

    assert re.fullmatch(r"[0-9a-f]{8}", written["id"])
    assert written["createdAt"].endswith("Z")
    fresh = Transcript(transcript.path)
    entries = fresh.read()
    assert entries == transcript.read()
    assert [e.get("role", e.get("type")) for e in entries] == ["user", "assistant", "tool", "compaction"]
    assert entries[1]["toolCalls"] == [call]
    assert entries[0] == written
    assert fresh.message_count() == 3
    assert [e["id"] for e in fresh.tail(2)] == [entries[2]["id"], entries[3]["id"]]
    assert fresh.tail(0) == []


def test_given_id_and_created_at_are_kept(transcript: Transcript) -> None:
    written = transcript.append({"id": "deadbeef", "createdAt": "2024-01-01T00:00:00Z", **_user("x")})
    assert (written["id"], written["createdAt"]) == ("deadbeef", "2024-01-01T00:00:00Z")


def test_file_is_private_and_one_physical_line_per_record(transcript: Transcript) -> None:
    text = "line1\nline2\r\n\x00 nul \u2028 sep \u2029 — ünïcødé 😀 中文"
    transcript.append(_user(text))
    transcript.append(_user("\ud800 lone surrogate"))
    raw = transcript.path.read_bytes()
    assert stat.S_IMODE(transcript.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(transcript.path.parent.stat().st_mode) == 0o700
    assert raw.count(b"\n") == 2 and raw.endswith(b"\n")
    assert "😀 中文".encode() in raw  # stored as UTF-8, not \u escapes
    assert "\u2028".encode() not in raw
    entries = Transcript(transcript.path).read()
    assert entries[0]["content"] == text
    assert entries[1]["content"] == "\ufffd lone surrogate"


def test_torn_last_line_is_skipped_and_next_append_starts_a_fresh_line(
    transcript: Transcript, caplog: pytest.LogCaptureFixture
) -> None:
    transcript.append(_user("one"))
    transcript.append(_user("two"))
    transcript.close()
    _raw_append(transcript.path, b'{"id":"abcd0123","role":"assistant","content":"hal')

    reader = Transcript(transcript.path)
    with caplog.at_level(logging.WARNING, logger="claw.store.transcript"):
        entries = reader.read()
    assert [e["content"] for e in entries] == ["one", "two"]
    assert reader.last_read_skipped == 1
    assert "torn last line" in caplog.text

    reader.append(_user("three"))
    assert reader.path.read_bytes().endswith(b'"content":"hal\n' + _line_of(reader, -1))
    assert [e["content"] for e in reader.read()] == ["one", "two", "three"]
    again = Transcript(reader.path)
    assert [e["content"] for e in again.read()] == ["one", "two", "three"]
    assert again.last_read_skipped == 1  # the torn bytes are now a malformed middle line


def _line_of(transcript: Transcript, index: int) -> bytes:
    return transcript.path.read_bytes().split(b"\n")[:-1][index] + b"\n"


def test_complete_last_record_without_newline_is_kept(transcript: Transcript) -> None:
    transcript.append(_user("one"))
    _raw_append(transcript.path, json.dumps(_user("two")).encode())
    assert [e["content"] for e in transcript.read()] == ["one", "two"]
    transcript.append(_user("three"))
    assert [e["content"] for e in transcript.read()] == ["one", "two", "three"]
    assert [e["content"] for e in Transcript(transcript.path).read()] == ["one", "two", "three"]


def test_malformed_middle_line_is_skipped_and_counted(
    transcript: Transcript, caplog: pytest.LogCaptureFixture
) -> None:
    transcript.append(_user("one"))
    _raw_append(transcript.path, b"{not json\n[1, 2]\n\xff\xfe\n\n")
    transcript.append(_user("two"))
    reader = Transcript(transcript.path)
    with caplog.at_level(logging.WARNING, logger="claw.store.transcript"):
        assert [e["content"] for e in reader.read()] == ["one", "two"]
    assert reader.last_read_skipped == 3
    assert "skipped 3 malformed" in caplog.text


def test_corrupt_first_line_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"session","version":\n')
    with Transcript(path) as writer:
        for i in range(5):
            writer.append(_user(f"m{i}"))
    reader = Transcript(path)
    assert [e["content"] for e in reader.read()] == [f"m{i}" for i in range(5)]
    assert reader.last_read_skipped == 1
    assert path.read_bytes().startswith(b'{"type":"session","version":\n')  # never rewritten


def test_nul_filled_tail_is_skipped(transcript: Transcript, caplog: pytest.LogCaptureFixture) -> None:
    transcript.append(_user("one"))
    transcript.close()
    _raw_append(transcript.path, b"\x00" * 4096)
    reader = Transcript(transcript.path)
    with caplog.at_level(logging.WARNING, logger="claw.store.transcript"):
        assert [e["content"] for e in reader.read()] == ["one"]
    assert "NUL bytes" in caplog.text
    reader.append(_user("two"))
    assert [e["content"] for e in Transcript(transcript.path).read()] == ["one", "two"]


def test_read_is_cached_and_appends_extend_the_cache(transcript: Transcript) -> None:
    for i in range(3):
        transcript.append(_user(f"m{i}"))
    reader = Transcript(transcript.path)
    assert len(reader.read()) == 3
    parsed = reader.lines_parsed
    assert parsed == 3
    assert len(reader.read()) == 3
    assert reader.lines_parsed == parsed  # no re-parse when the file did not change
    reader.append(_user("own"))
    assert [e["content"] for e in reader.read()][-1] == "own"
    assert reader.lines_parsed == parsed  # our own append extended the cache


def test_external_append_is_seen_incrementally(transcript: Transcript) -> None:
    reader = Transcript(transcript.path)
    transcript.append(_user("a"))
    transcript.append(_user("b"))
    assert len(reader.read()) == 2
    transcript.append(_user("c"))  # another writer
    assert [e["content"] for e in reader.read()] == ["a", "b", "c"]
    assert reader.lines_parsed == 3  # only the new line was parsed


def test_rewritten_file_is_read_again_in_full(transcript: Transcript) -> None:
    transcript.append(_user("a"))
    transcript.append(_user("b"))
    reader = Transcript(transcript.path)
    assert len(reader.read()) == 2
    replacement = transcript.path.with_suffix(".new")
    replacement.write_bytes(b"".join(json.dumps(_user(c)).encode() + b"\n" for c in "xyz"))
    os.replace(replacement, transcript.path)
    assert [e["content"] for e in reader.read()] == ["x", "y", "z"]
    transcript.append(_user("after"))  # the old fd pointed at the replaced file: it must follow the path
    assert [e["content"] for e in reader.read()] == ["x", "y", "z", "after"]


def test_ten_thousand_lines_read_back(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with Transcript(path) as writer:
        for i in range(10_000):
            role = "user" if i % 2 == 0 else "assistant"
            writer.append({"role": role, "content": f"message {i} " + "x" * (i % 50)})
        writer.append({"type": "compaction", "summary": "older turns", "firstKeptId": "00000000"})
    reader = Transcript(path)
    entries = reader.read()
    assert len(entries) == 10_001
    assert [e["content"].split()[1] for e in entries[:-1]] == [str(i) for i in range(10_000)]
    assert len({e["id"] for e in entries}) == 10_001
    assert reader.message_count() == 10_000
    assert reader.tail(1)[0]["type"] == "compaction"
    assert reader.lines_parsed == 10_001
    assert len(reader.read()) == 10_001 and reader.lines_parsed == 10_001


def test_generated_ids_never_repeat_within_a_transcript(
    transcript: Transcript, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript.append({"id": "aaaaaaaa", **_user("given")})
    draws = iter(["aaaaaaaa", "aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr("claw.store.transcript.secrets.token_hex", lambda n: next(draws))
    assert transcript.append(_user("generated"))["id"] == "bbbbbbbb"


def test_append_after_the_file_was_moved_away_writes_a_new_file(transcript: Transcript) -> None:
    transcript.append(_user("old"))
    moved = transcript.path.with_name("moved.jsonl")
    os.rename(transcript.path, moved)
    transcript.append(_user("new"))
    assert [e["content"] for e in transcript.read()] == ["new"]
    assert [e["content"] for e in Transcript(moved).read()] == ["old"]
