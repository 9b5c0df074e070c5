"""The usage ledger: what recording a model call costs on the reply's path, and `claw usage --by day` at scale.

Run from the repo root:  python -m bench.usage_ledger  [--calls 20000] [--rows 1000000]

1. record: `UsageLedger.record(call)` as the router's observer calls it on the event loop for every
   model call (row built, price looked up, put on the writer's queue), `--calls` times, one at a time
   with the writer thread committing behind it. Also: how long the writer took to commit them all
   (rows per second, with `synchronous=FULL`), and `metered`'s own cost per streamed delta.
2. view: `--rows` rows spread over 400 days, 6 models, 2 agents, 50 sessions, 5 sources, written
   straight into a fresh gateway.db; then `summarize(by="day")` (the query behind `usage.summary`)
   median of 5 (and by session, model and source, 3 each, for scale), and the whole
   `python -m claw usage --by day` process (in-process gateway, no gateway running), median of 3,
   after one warm-up run.

Targets: record p50 under 1 ms; `claw usage --by day` over 1,000,000 rows under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.report import Target, finish, machine_line, median, spread
from claw.providers.base import TextDelta, Usage
from claw.providers.metering import CallScope, ModelCall, metered
from claw.usage.ledger import UsageLedger
from claw.usage.prices import PriceBook
from claw.usage.report import summarize

REPO = Path(__file__).resolve().parents[1]
MODELS = [("openai", "gpt-4o-mini"), ("openai", "gpt-4o"), ("openai", "gpt-5"), ("ollama", "llama3.2"),
          ("openrouter", "anthropic/claude-sonnet-4"), ("openrouter", "x/unpriced")]  # fmt: skip
SOURCES = ["chat", "channel", "automation", "subagent", "compaction"]


def _call(rng: random.Random, ts: float) -> ModelCall:
    provider, model = rng.choice(MODELS)
    agent = rng.choice(["main", "work"])
    source = rng.choice(SOURCES)
    scope = CallScope(agent, f"agent:{agent}:s{rng.randint(1, 25)}", f"run{rng.randint(1, 10**6)}", source,
                      f"job{rng.randint(1, 5)}" if source == "automation" else None)  # fmt: skip
    inp = rng.randint(100, 20_000)
    usage = Usage(inp, rng.randint(10, 2000), rng.randint(0, inp // 2), 0, rng.randint(0, 200))
    return ModelCall(ts, scope, provider, model, usage, False, "ok", None, 300.0, 1500.0)


def bench_record(home: Path, calls: int) -> float:
    ledger = UsageLedger(home / "gateway.db", is_local=lambda p: p == "ollama", prices=PriceBook)
    rng = random.Random(1)
    prepared = [_call(rng, time.time()) for _ in range(calls)]
    ledger.record(prepared[0])
    ledger.flush()  # the database open and migrated: not part of any call's cost
    times = []
    started = time.perf_counter()
    for call in prepared[1:]:
        t0 = time.perf_counter()
        ledger.record(call)
        times.append(time.perf_counter() - t0)
    enqueued = time.perf_counter()
    ledger.flush(120)
    done = time.perf_counter()
    ledger.close()
    print(spread("record (on the event loop)", times))
    print(f"writer: {calls - 1:,} rows committed {done - started:.2f} s after the first record "
          f"({(calls - 1) / (done - started):,.0f} rows/s; {done - enqueued:.2f} s after the last)")  # fmt: skip
    print(spread("metered() per delta, 1,000-delta stream", _metered_cost()))
    return median(times)


def _metered_cost() -> list[float]:
    async def deltas(n: int):  # type: ignore[no-untyped-def]
        for _ in range(n):
            yield TextDelta("word ")
        yield Usage(10, 10)

    async def once(observed: bool) -> float:
        observers = [lambda call: None] if observed else []
        t0 = time.perf_counter()
        async for _ in metered(deltas(1000), "openai", "m", [{"role": "user", "content": "hi"}], observers):
            pass
        return time.perf_counter() - t0

    async def run() -> list[float]:
        out = []
        for _ in range(50):
            out.append(max(0.0, (await once(True)) - (await once(False))) / 1000)
        return out

    return asyncio.run(run())


def build_rows(home: Path, rows: int) -> None:
    ledger = UsageLedger(home / "gateway.db", is_local=lambda p: p == "ollama", prices=PriceBook)
    rng = random.Random(2)
    end = time.time()
    start = end - 400 * 86_400
    batch = 50_000
    t0 = time.perf_counter()
    for offset in range(0, rows, batch):
        count = min(batch, rows - offset)
        ledger.insert_rows([ledger.row(_call(rng, rng.uniform(start, end))) for _ in range(count)])
    ledger.close()
    size = (home / "gateway.db").stat().st_size
    print(f"built {rows:,} rows in {time.perf_counter() - t0:.1f} s; gateway.db {size / 1e6:.0f} MB")


def bench_view(home: Path) -> tuple[float, float]:
    ledger = UsageLedger(home / "gateway.db")
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        groups, total = ledger.read(lambda c: summarize(c, "day", PriceBook()))
        times.append(time.perf_counter() - t0)
    for by in ("session", "model", "source"):  # no target: for scale
        other = []
        for _ in range(3):
            t0 = time.perf_counter()
            ledger.read(lambda c, by=by: summarize(c, by, PriceBook()))
            other.append(time.perf_counter() - t0)
        print(spread(f"summarize(by={by}) query", other, unit="s"))
    ledger.close()
    cost = f"${total.cost:,.2f} (+{total.unpriced:,} calls unpriced)"
    print(f"summarize(by=day): {len(groups)} days, {total.calls:,} calls, {cost}")
    print(spread("summarize(by=day) query", times, unit="s"))
    env = {**os.environ, "CLAW_HOME": str(home), "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "claw", "usage", "--by", "day", "--json"]
    subprocess.run(command, env=env, cwd=REPO, check=True, capture_output=True)  # warm the file cache
    walls = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run(command, env=env, cwd=REPO, check=True, capture_output=True)
        walls.append(time.perf_counter() - t0)
    print(spread("`claw usage --by day` process", walls, unit="s"))
    return median(times), median(walls)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="claw-usage-bench-") as tmp:
        record_p50 = bench_record(Path(tmp) / "record", args.calls)
        view_home = Path(tmp) / "view"
        view_home.mkdir()
        build_rows(view_home, args.rows)
        query, wall = bench_view(view_home)
    return finish(
        [
            Target("ledger record p50", record_p50 * 1000, 1.0, "ms"),
            Target(f"summarize by day over {args.rows:,} rows", query, 1.0, "s"),
            Target(f"claw usage --by day over {args.rows:,} rows", wall, 1.0, "s"),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
