"""Head+tail truncation, the per-result limit, and the bounded exec output collector."""

from __future__ import annotations

import tracemalloc

import pytest

from claw.config import AgentSettings
from claw.tools.exec_output import LABEL, OutputCollector
from claw.tools.truncate import cut_head_tail, result_limit


def test_short_text_is_unchanged() -> None:
    assert cut_head_tail("abc", 10, label="x") == "abc"
    assert cut_head_tail("a" * 1000, 1000, label="x") == "a" * 1000


def test_long_text_keeps_head_and_tail_with_a_marker() -> None:
    text = "".join(f"{i:06d}\n" for i in range(10_000))  # 70,000 chars
    cut = cut_head_tail(text, 10_000, label="read")
    assert len(cut) <= 10_000
    assert cut.startswith(text[:7_000])
    assert cut.endswith(text[-2_000:])
    assert "\n[... truncated read: kept 7000+2000 of 70000 chars ...]\n" in cut


@pytest.mark.parametrize("limit", [50, 120, 300, 1_000, 1_001])
def test_the_cut_never_exceeds_the_limit(limit: int) -> None:
    cut = cut_head_tail("z" * 100_000, limit, label="a-rather-long-label")
    assert len(cut) <= limit


def test_result_limit() -> None:
    assert result_limit(AgentSettings()) == int(0.3 * 128_000 * 4)
    assert result_limit(AgentSettings.model_validate({"contextTokens": 1024})) == 2_000
    assert result_limit(AgentSettings.model_validate({"contextTokens": 2_000_000})) == 400_000
    assert result_limit(AgentSettings.model_validate({"tools": {"resultMaxChars": 5_000}})) == 5_000


@pytest.mark.parametrize("size", [0, 10, 9_999, 10_000, 10_001, 250_000])
def test_collector_matches_cut_head_tail_whatever_the_chunking(size: int) -> None:
    text = "".join("é€😀abc"[i % 6] for i in range(size))
    data = text.encode()
    for chunk in (1, 7, 4096):
        collector = OutputCollector(10_000)
        for start in range(0, len(data), chunk):
            collector.feed(data[start : start + chunk])
        assert collector.text() == cut_head_tail(text, 10_000, label=LABEL), chunk
        assert collector.total_chars == size


def test_collector_replaces_invalid_utf8() -> None:
    collector = OutputCollector(1_000)
    collector.feed(b"ok \xff\xfe done")
    assert collector.text() == "ok \ufffd\ufffd done"


def test_collector_memory_stays_bounded_for_small_chunks() -> None:
    chunk = b"0123456789abcdef" * 64  # 1 KiB, smaller than the tail it keeps
    collector = OutputCollector(50_000)
    tracemalloc.start()
    try:
        for _ in range(20_000):  # 20 MiB in all
            collector.feed(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert collector.total_chars == 20_000 * 1024
    assert peak < 1_000_000, f"peak {peak} bytes: the collector kept too much"
    assert collector.text().endswith(chunk.decode()[-100:])
