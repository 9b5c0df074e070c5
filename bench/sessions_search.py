"""Session search, index upkeep and fork: search latency over 10,000 sessions / 1,000,000 messages, the
index update a turn costs, and forking a 10,000-message session.

Run from the repo root:  python -m bench.sessions_search  [--sessions 10000] [--messages 100] [--queries 200]

Synthetic conversations (the memory bench's fixed-seed vocabulary of ~4,000 made-up words, Zipf-
distributed, 8-40 words a message, a timestamp a minute apart) go straight into a `SearchIndex` through
`SearchIndex.sync`, the call every catch-up makes (no transcripts are written for the corpus: only the
index is measured there). Then:

  search          --queries searches of 1-3 words (the last one as typed, for a third of them: prefix)
                  on the full index, newest 20 first, as `sessions.search` runs them
  search + check  the same with the catch-up check `sessions.search` does first (the ledger against a
                  10,000-entry session index whose counts all match: nothing to read)
  turn update     `index_sessions` for one turn (a user message and a reply) appended to a real session
                  with a transcript on disk: what `SessionStore.flush` adds after the reply's terminal event
  fork            `fork_session` of a real 10,000-message session, its transcript already read (a gateway's
                  case) and from a fresh store (it parses the whole file first)

Targets (issue 22): search p50 under 50 ms; index update per turn under 1 ms p50; fork under 200 ms.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.memory_search import vocabulary
from bench.report import Target, finish, machine_line, median, spread
from claw.store.fork import fork_session
from claw.store.index_file import SessionIndexFile
from claw.store.search_index import SearchIndex
from claw.store.search_sync import catch_up, index_sessions
from claw.store.session_entry import SessionEntry
from claw.store.sessions import SessionStore

START = datetime(2025, 1, 1, tzinfo=UTC)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def build_corpus(sessions_dir: Path, sessions: int, messages: int, seed: int = 1) -> tuple[SearchIndex, float]:
    """The index of `sessions` synthetic sessions of `messages` messages each, and a session index that
    agrees with it; seconds the index took to build."""
    rng = random.Random(seed)
    words = vocabulary(random.Random(0))
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))
    index = SearchIndex(sessions_dir / "search.sqlite")
    entries: dict[str, SessionEntry] = {}
    started = time.perf_counter()
    moment = START
    for n in range(sessions):
        session_id = f"{n:032x}"
        batch: list[dict[str, Any]] = []
        for m in range(messages):
            moment += timedelta(seconds=rng.randint(1, 120))
            text = " ".join(rng.choices(words, cum_weights=cumulative, k=rng.randint(8, 40)))
            batch.append({"id": f"{m:08x}", "role": "user" if m % 2 == 0 else "assistant",
                          "content": text, "createdAt": _iso(moment)})  # fmt: skip
        key = f"agent:main:s{n}"
        index.sync(session_id, key, batch)
        stamp = _iso(moment)
        entries[key] = SessionEntry(key, session_id, stamp, stamp, message_count=messages)
        if n and n % 1000 == 0:
            print(f"  indexed {n} sessions ({n * messages} messages), {time.perf_counter() - started:.0f} s")
    built = time.perf_counter() - started
    SessionIndexFile(sessions_dir / "sessions.json").save(entries, {})
    return index, built


def queries(count: int, seed: int = 7) -> list[tuple[str, bool]]:
    rng = random.Random(seed)
    words = vocabulary(random.Random(0))
    weights = [1 / (rank + 1) for rank in range(len(words))]
    out = []
    for n in range(count):
        picked = rng.choices(words, weights, k=rng.randint(1, 3))
        prefix = n % 3 == 0
        if prefix:
            picked[-1] = picked[-1][: max(2, len(picked[-1]) - 2)]
        out.append((" ".join(picked), prefix))
    return out


def measure_search(
    store: SessionStore, index: SearchIndex, asked: list[tuple[str, bool]]
) -> tuple[list[float], list[float]]:
    plain, checked = [], []
    for query, prefix in asked:
        started = time.perf_counter()
        index.search(query, limit=20, prefix=prefix)
        plain.append(time.perf_counter() - started)
    for query, prefix in asked:
        started = time.perf_counter()
        catch_up(store, index)
        index.search(query, limit=20, prefix=prefix)
        checked.append(time.perf_counter() - started)
    return plain, checked


def measure_turns(root: Path, turns: int) -> list[float]:
    store = SessionStore(root / "turns")
    key = "agent:main:main"
    store.get_or_create(key)
    transcript = store.transcript(key)
    index = store.search_index()
    times = []
    for n in range(turns):
        transcript.append({"role": "user", "content": f"question {n} about the turn update cost", "runId": f"r{n}"})
        transcript.append({"role": "assistant", "content": f"answer {n}: it is small", "runId": f"r{n}"})
        started = time.perf_counter()
        index_sessions(store, index, [key])
        times.append(time.perf_counter() - started)
    store.close()
    return times


def measure_fork(root: Path, messages: int, runs: int) -> tuple[list[float], list[float]]:
    sessions_dir = root / "fork"
    store = SessionStore(sessions_dir)
    key = "agent:main:big"
    store.get_or_create(key)
    transcript = store.transcript(key)
    for n in range(messages // 2):
        transcript.append({"role": "user", "content": f"message {n} " + "lorem ipsum " * 8, "runId": f"r{n}"})
        transcript.append({"role": "assistant", "content": f"reply {n} " + "dolor sit " * 12, "runId": f"r{n}"})
    store.record_turn(key, preview="x")
    transcript.read()
    warm, cold = [], []
    for n in range(runs):
        started = time.perf_counter()
        fork_session(store, key, f"agent:main:warm{n}")
        warm.append(time.perf_counter() - started)
    store.close()
    for n in range(runs):
        fresh = SessionStore(sessions_dir)
        started = time.perf_counter()
        fork_session(fresh, key, f"agent:main:cold{n}")
        cold.append(time.perf_counter() - started)
        fresh.close()
    return warm, cold


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=100, help="messages per session")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--fork-messages", type=int, default=10_000)
    args = parser.parse_args(argv)
    print(machine_line())
    targets = []
    with tempfile.TemporaryDirectory(prefix="claw-bench-sessions-") as tmp:
        root = Path(tmp)
        corpus_dir = root / "corpus"
        corpus_dir.mkdir()
        total = args.sessions * args.messages
        print(f"building: {args.sessions} sessions x {args.messages} messages = {total} messages")
        index, built = build_corpus(corpus_dir, args.sessions, args.messages)
        size = sum(p.stat().st_size for p in corpus_dir.glob("search.sqlite*")) / 1e6
        print(f"built in {built:.1f} s ({total / built:,.0f} messages/s), index {size:.0f} MB")
        store = SessionStore(corpus_dir)
        plain, checked = measure_search(store, index, queries(args.queries))
        print(spread("search (20 newest)", plain))
        print(spread("search + catch-up check (sessions.search)", checked))
        targets.append(Target(f"sessions_search_p50_{total}", median(checked) * 1000, 50, "ms"))
        store.close()
        index.close()

        turns = measure_turns(root, args.turns)
        print(spread("index update per turn (2 messages)", turns))
        targets.append(Target("sessions_index_update_per_turn_p50", median(turns) * 1000, 1, "ms"))

        warm, cold = measure_fork(root, args.fork_messages, 5)
        print(spread(f"fork of {args.fork_messages} messages (transcript read)", warm))
        print(spread(f"fork of {args.fork_messages} messages (fresh store)", cold))
        targets.append(Target(f"sessions_fork_{args.fork_messages}_messages", median(cold) * 1000, 200, "ms"))
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
