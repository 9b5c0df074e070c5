"""Totals by every grouping agree with the rows; costs are priced at view time, so a price changed in config
re-prices the views without any row's tokens changing; unknown prices stay unknown; local servers are free."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from claw.config import ConfigFile
from claw.providers.base import Usage
from claw.settings.usage import ModelPrice
from claw.usage.prices import PriceBook, Tokens, cost_of, format_cost, is_local
from claw.usage.report import GROUPS, parse_since, summarize
from tests.usage.rows import call, ledger, random_calls

START = time.mktime((2026, 3, 1, 0, 0, 0, 0, 0, -1))
FIELDS = ("calls", "input", "output", "cached_input", "reasoning", "estimated")


@pytest.mark.parametrize("by", sorted(GROUPS))
def test_totals_by_each_grouping_agree_with_the_rows(tmp_path: Path, by: str) -> None:
    calls = random_calls(600, START)
    book = ledger(tmp_path / "gateway.db")
    book.insert_rows([book.row(c) for c in calls])
    groups, total = book.read(lambda c: summarize(c, by, PriceBook()))
    key_of = {
        "day": lambda c: time.strftime("%Y-%m-%d", time.localtime(c.started_at)),
        "model": lambda c: f"{c.provider}/{c.model}",
        "agent": lambda c: c.scope.agent_id,
        "session": lambda c: c.scope.session_key,
        "job": lambda c: c.scope.job_id,
        "source": lambda c: c.scope.source,
        "run": lambda c: c.scope.run_id,
    }[by]
    expected: dict[str | None, list[int]] = {}
    for c in calls:
        sums = expected.setdefault(key_of(c), [0] * len(FIELDS))
        for i, value in enumerate((1, c.usage.input_tokens, c.usage.output_tokens, c.usage.cached_input_tokens,
                                   c.usage.reasoning_tokens, int(c.estimated))):  # fmt: skip
            sums[i] += value
    assert {g.key: [getattr(g, f) for f in FIELDS] for g in groups} == expected
    assert [getattr(total, f) for f in FIELDS] == [sum(v[i] for v in expected.values()) for i in range(len(FIELDS))]
    assert total.cost == pytest.approx(sum(g.cost or 0.0 for g in groups))
    assert total.unpriced == sum(g.unpriced for g in groups) > 0  # the openrouter model has no price


def test_a_price_changed_in_config_reprices_views_and_keeps_the_rows(tmp_path: Path) -> None:
    book = ledger(tmp_path / "gateway.db")
    book.insert_rows([book.row(call(START, usage=Usage(2_000_000, 1_000_000, cached_input_tokens=1_000_000)))])
    before = book.read(lambda c: c.execute("SELECT * FROM usage_calls").fetchall())
    shipped = book.read(lambda c: summarize(c, None, PriceBook()))[1].cost
    # gpt-4o-mini as shipped: 1M uncached at 0.15, 1M cached at 0.075, 1M output at 0.60
    assert shipped == pytest.approx(0.15 + 0.075 + 0.60)
    raw = {"models": {"prices": {"openai/gpt-4o-mini": {"input": 1.0, "output": 2.0, "cachedInput": 0.5}}}}
    configured = ConfigFile.model_validate(raw).model_prices
    repriced = book.read(lambda c: summarize(c, "model", PriceBook(configured)))
    assert repriced[1].cost == pytest.approx(1.0 + 0.5 + 2.0)
    assert repriced[0][0].key == "openai/gpt-4o-mini"
    assert book.read(lambda c: c.execute("SELECT * FROM usage_calls").fetchall()) == before
    assert before[0]["cost_at_call"] == pytest.approx(shipped)  # what it was priced at when written


def test_unknown_prices_are_no_cost_and_local_servers_are_free(tmp_path: Path) -> None:
    book = ledger(tmp_path / "gateway.db")
    book.insert_rows([book.row(call(START, provider="openrouter", model="some/new-model")),
                      book.row(call(START, provider="ollama", model="llama3.2"))])  # fmt: skip
    groups, total = book.read(lambda c: summarize(c, "model", PriceBook()))
    by_key = {g.key: g for g in groups}
    assert by_key["openrouter/some/new-model"].cost is None and by_key["openrouter/some/new-model"].unpriced == 1
    assert by_key["ollama/llama3.2"].cost == 0.0
    assert (total.cost, total.unpriced) == (0.0, 1)
    assert format_cost(None) == "—" and format_cost(0.0, 1) == "$0.0000+"


def test_cache_writes_and_reads_are_priced_apart() -> None:
    book = PriceBook({"p/m": ModelPrice(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)})
    price = book.price("p", "m", local=False)
    assert price is not None
    cost = cost_of(price, Tokens(input=1_000_000, output=0, cached_input=500_000, cache_write=250_000))
    assert cost == pytest.approx(0.25 * 3.0 + 0.5 * 0.3 + 0.25 * 3.75)


def test_loopback_endpoints_are_local() -> None:
    assert is_local("openai", "http://127.0.0.1:8000/v1") and is_local("x", "http://localhost:1234/v1")
    assert is_local("ollama", None) and is_local("acme", "http://[::1]:9/v1")
    assert not is_local("openai", "https://api.openai.com/v1") and not is_local("acme", None)


def test_since_takes_spans_and_dates() -> None:
    now = 1_800_000_000.0
    assert parse_since("7d", now) == now - 7 * 86_400 and parse_since("24h", now) == now - 86_400
    assert parse_since("2026-03-01") == START
    with pytest.raises(Exception, match="not a date or a span"):
        parse_since("last tuesday")


def test_a_span_that_starts_mid_day_counts_only_the_calls_after_it(tmp_path: Path) -> None:
    book = ledger(tmp_path / "gateway.db")
    noon = START + 12 * 3600
    stamps = [START + 3600, noon - 60, noon + 60, START + 86_400 + 60, START + 3 * 86_400]
    book.insert_rows([book.row(call(ts, usage=Usage(n + 1, 0))) for n, ts in enumerate(stamps)])
    for since, expected in (
        (noon, [3, 4, 5]),
        (START, [1, 2, 3, 4, 5]),
        (START + 86_400, [4, 5]),
        (None, [1, 2, 3, 4, 5]),
    ):
        groups, total = book.read(lambda c, since=since: summarize(c, "day", PriceBook(), since=since))
        assert total.input == sum(expected) and total.calls == len(expected), since
        assert sum(g.input for g in groups) == total.input
    daily = book.read(lambda c: c.execute("SELECT SUM(calls), SUM(input_tokens) FROM usage_daily").fetchone())
    assert tuple(daily) == (5, 15)  # the day sums kept with the rows, in the same transactions
