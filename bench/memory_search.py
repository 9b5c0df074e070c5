"""Memory index: build time for 5 MB of notes, and search latency on 10,000 chunks.

Run from the repo root:  python -m bench.memory_search  [--build-mb 5] [--chunks 10000] [--queries 200]

Synthetic daily notes (a fixed-seed vocabulary of ~4,000 words, Zipf-distributed, with dates,
names and numbers) are written to a temporary workspace, then:

  build     a full index of --build-mb megabytes of notes from scratch (keyword-only: chunking, hashing,
            SQLite + FTS5 inserts), and an incremental sync with nothing changed / one file edited
  search    --queries keyword searches of 1-4 words on an index of at least --chunks chunks:
            the search itself, and the search plus the sync check every memory_search call makes
  hybrid    the same searches with a vector for every chunk (a local bag-of-words embedder, so the
            number is the in-process cosine + merge cost, not an embeddings endpoint's latency)

Target (issue 6): keyword-only search p50 under 20 ms on 10,000 chunks.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.report import Target, finish, machine_line, median, spread
from claw.memory.index import MemoryIndex
from claw.memory.search import SearchParams, search

NAMES = ["Alex", "Priya", "Dana", "Marco", "Helen", "Sam", "Yuki", "Omar", "Lena", "Tom"]


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        length = rng.randint(2, 5)
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(length // 2 + 1)))
    return sorted(words)


def note(rng: random.Random, words: Sequence[str], weights: Sequence[float], day: int, chars: int) -> str:
    lines = [f"# 2024-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}"]
    size = len(lines[0])
    while size < chars:
        body = " ".join(rng.choices(words, weights, k=rng.randint(8, 24)))
        line = f"- {rng.choice(NAMES)} {body}, {rng.randint(1, 999)} items at {rng.randint(0, 23):02d}:00."
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


def write_notes(workspace: Path, megabytes: float, seed: int = 1, file_chars: int = 5_000) -> int:
    rng = random.Random(seed)
    words = vocabulary(random.Random(0))
    weights = [1 / (rank + 1) for rank in range(len(words))]
    folder = workspace / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    day = 0
    while total < megabytes * 1_000_000:
        text = note(rng, words, weights, day, file_chars)
        (folder / f"{2000 + day // 336}-{day:05d}.md").write_text(text, encoding="utf-8")
        total += len(text.encode())
        day += 1
    return day


class BagOfWords:
    """A local embedder (hashed bag of words, 256 dims): stands in for an endpoint in the hybrid timing."""

    model = "bench-bag-of-words"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * 256
            for word in re.findall(r"\w+", text.lower()):
                vector[int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little") % 256] += 1
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            out.append([v / norm for v in vector])
        return out


def queries(count: int, seed: int = 2) -> list[str]:
    rng = random.Random(seed)
    words = vocabulary(random.Random(0))
    return [" ".join(rng.choice(words[:1500]) for _ in range(rng.randint(1, 4))) for _ in range(count)]


def timed(fn, runs: Sequence[str]) -> list[float]:
    times = []
    for query in runs:
        start = time.perf_counter()
        fn(query)
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description="Memory index build time and search latency.")
    parser.add_argument("--build-mb", type=float, default=5.0)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--no-hybrid", action="store_true", help="skip the hybrid (vector) timing")
    args = parser.parse_args()
    print(machine_line())
    targets: list[Target] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = write_notes(root / "build", args.build_mb)
        index = MemoryIndex(root / "build.sqlite", root / "build")
        start = time.perf_counter()
        report = index.sync()
        build = time.perf_counter() - start
        chunks = index.status()["chunks"]
        print(f"build: {args.build_mb:g} MB in {files} files -> {chunks} chunks in {build:.2f} s")
        start = time.perf_counter()
        assert index.sync().changed == []
        print(f"sync with nothing changed: {(time.perf_counter() - start) * 1000:.1f} ms (a stat per file)")
        edited = root / "build" / "memory" / sorted(report.changed)[0].split("/", 1)[1]
        edited.write_text(edited.read_text() + "- one more line\n", encoding="utf-8")
        start = time.perf_counter()
        assert len(index.sync().changed) == 1
        print(f"sync after editing one file: {(time.perf_counter() - start) * 1000:.1f} ms")
        index.close()

        # ~1,280 new characters per chunk at 400 tokens with an 80-token overlap
        write_notes(root / "big", args.chunks * 1_300 / 1_000_000, seed=3)
        big = MemoryIndex(root / "big.sqlite", root / "big")
        big.sync()
        chunks = big.status()["chunks"]
        assert chunks >= args.chunks * 0.95, chunks
        runs = queries(args.queries)
        params = [SearchParams(q, max_results=6, min_score=0.0) for q in runs]
        by_query = dict(zip(runs, params, strict=True))
        search_only = timed(lambda q: search(big, by_query[q]), runs)

        def with_sync(q: str) -> None:
            big.sync()
            search(big, by_query[q])

        synced = timed(with_sync, runs)
        print(f"search: {chunks} chunks, {len(runs)} keyword queries of 1-4 words")
        print(spread("keyword search", search_only))
        print(spread("keyword search + sync check (memory_search)", synced))
        targets.append(Target(f"memory_search_keyword_p50_{args.chunks}", median(search_only) * 1000, 20, "ms"))
        if not args.no_hybrid:
            big.embedder = BagOfWords()
            start = time.perf_counter()
            big.sync()
            print(f"embedding {chunks} chunks locally: {time.perf_counter() - start:.1f} s")
            print(spread("hybrid search (local embedder)", timed(lambda q: search(big, by_query[q]), runs)))
        big.close()
    targets.append(Target(f"memory_index_build_{args.build_mb:g}mb", build, 60, "s"))
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
