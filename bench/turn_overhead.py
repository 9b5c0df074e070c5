"""Per-turn gateway overhead with an instant model.

Run from the repo root:  python -m bench.turn_overhead  [--turns 200] [--warmup 20]

A real in-process `Gateway` + `LocalClient`, the real `openai` client, and
`ScriptedModelServer(instant=True)` (tests/support) on 127.0.0.1, run in a child process as a
real endpoint would be (bench/model_process.py: as a thread it would compete for the GIL).
The session already holds 10,000 transcript messages (bench/corpus.py) and the workspace 100 KB
of bootstrap files; the stand-in model has a 128k-token window. The first turn finds the history
far over the window and compacts it, as claw would; warm-up turns follow, then the measured
turns, each of which must make exactly one model call. For each measured turn:

  (a) dispatch → model   `client.run()` called → the server's handler starts (`received_at`).
      Split at the moment claw hands the request to its provider (`provider.stream()` called):
      before it is claw (dispatch, lanes, transcript append, context assembly), after it the
      request's encoding (claw's RequestEncoder), the openai client building and sending it, and
      the server process reading the request head.
  (b) model → end        the model's last byte → the client receives the lifecycle `end` event.
      The server stamps `finished_at` after `write_eof()` (the chunked terminator, which the
      openai client waits for); in instant mode `first_byte_at` is the single write of every
      SSE frame just before it, so `finished_at` is the last byte. Split at the moment the
      provider's stream is exhausted: before it the openai client parsing SSE, after it claw
      (assistant transcript line, session counters, the `end` event delivered).
      Both processes stamp `time.perf_counter()`, CLOCK_MONOTONIC on Linux: one clock.
  end to end             `client.run()` called → the session index written (the turn's last write,
      after `end`: a read-modify-write under the index lock with two fsyncs), less the model's
      own time (the server's handler start → its last byte). What a turn costs the machine
      besides the model, where (a)+(b) is what the user waits for.

Targets: overhead (a)+(b) p50 under 5 ms (issue 2, part 10); end to end p50 under 7 ms; claw's part
alone (without the openai client) p50 under 3 ms, a target of its own that can miss while the total
is met.
Afterwards bench/assembly.py times claw's steps one by one on the same data.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bench import assembly
from bench.corpus import write_bootstrap, write_transcript
from bench.model_process import ModelProcess
from bench.report import Target, finish, fsync_latency, machine_line, ms, percentile, spread
from claw.client.local import LocalClient
from claw.compose import build_gateway
from claw.config import load_config
from claw.paths import Paths
from claw.providers.base import ChatRequest, ModelDelta, ModelProvider
from claw.providers.failover import ModelRouter
from claw.providers.openai_compat import OpenAICompatProvider
from claw.store.sessions import SessionStore
from claw.workspace import workspace_dir

SESSION_KEY = "agent:main:main"
MODEL = "test-model"
MESSAGE = "turn {n}: what is on my plan for today?"


@dataclass(slots=True)
class ProviderMarks:
    called_at: float = 0.0
    drained_at: float = 0.0
    flushed_at: float = 0.0  # the session index write after `end` returned


def time_index_writes(store: SessionStore, marks: ProviderMarks) -> None:
    """Stamp `marks.flushed_at` whenever `store.flush()` (the gateway's write after `end`) returns."""
    flush = store.flush

    def timed_flush() -> None:
        flush()
        marks.flushed_at = time.perf_counter()

    store.flush = timed_flush  # type: ignore[method-assign]


class TimedProvider:
    """The real provider, with two timestamps: request handed over, stream exhausted."""

    def __init__(self, inner: ModelProvider, marks: ProviderMarks) -> None:
        self.name = inner.name
        self._inner = inner
        self._marks = marks

    async def stream(self, request: ChatRequest) -> AsyncIterator[ModelDelta]:
        self._marks.called_at = time.perf_counter()
        async for delta in self._inner.stream(request):
            yield delta
        self._marks.drained_at = time.perf_counter()


@dataclass(frozen=True, slots=True)
class Turn:
    to_provider: float  # dispatch → provider.stream() called            (claw)
    to_server: float  # dispatch → server handler started                 (a)
    from_model: float  # server's last byte → `end` event at the client   (b)
    client_tail: float  # server's last byte → provider stream exhausted   (openai client)
    end_to_end: float  # dispatch → index written, less the server's own time
    request_bytes: int
    messages: int

    @property
    def openai_send(self) -> float:
        return self.to_server - self.to_provider

    @property
    def claw_tail(self) -> float:
        return self.from_model - self.client_tail

    @property
    def overhead(self) -> float:
        return self.to_server + self.from_model

    @property
    def claw_only(self) -> float:
        return self.to_provider + self.claw_tail


def prepare_home(home: Path, server: ModelProcess, messages: int, seed: int, window: int) -> Paths:
    """Point claw at `home` and the server (a model with a `window`-token context); write the
    bootstrap files and the long transcript."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "CLAW_")):
            del os.environ[name]
    os.environ.update(CLAW_HOME=str(home), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench", CLAW_MODEL=MODEL)
    os.environ["NO_PROXY"] = ",".join(filter(None, [os.environ.get("NO_PROXY"), "127.0.0.1", "localhost"]))
    paths = Paths.from_env()
    # An unknown model gets a conservative 32k window, which 100 KB of bootstrap files nearly fill:
    # every turn would flush memory or compact. Give the stand-in model a modern 128k window.
    paths.config_file.write_text(f'[models."{MODEL}"]\ncontextWindow = {window}\n', encoding="utf-8")
    config = load_config(paths)
    rng = random.Random(seed)
    size = write_bootstrap(workspace_dir(paths, config, "main"), rng)
    store = SessionStore(paths.sessions_dir("main"))
    entry = store.get_or_create(SESSION_KEY)
    started = time.perf_counter()
    with store.transcript(entry) as transcript:
        counts = write_transcript(transcript, messages, rng)
    store.record_turn(SESSION_KEY, preview="(bench history)")
    store.close()
    file_size = store.transcript_path(entry.session_id).stat().st_size
    print(f"bootstrap: {size / 1024:.0f} KB in 5 files")
    print(
        f"transcript: {sum(counts.values())} messages ({dict(sorted(counts.items()))}), "
        f"{file_size / 1e6:.1f} MB, written in {time.perf_counter() - started:.1f} s"
    )
    return paths


async def _follow(client: LocalClient, n: int) -> float:
    """Send turn `n` and wait for its terminal event; returns when it was received."""
    handle = await client.run(MESSAGE.format(n=n))
    if handle.run_id is None:
        raise RuntimeError(f"turn {n} was not accepted: {handle}")
    phase, ended = None, 0.0
    async for event in client.events(handle.run_id):
        if event.is_terminal:
            ended, phase = time.perf_counter(), event.data.get("phase")
    if phase != "end":
        raise RuntimeError(f"turn {n} ended with {phase}")
    return ended


async def cold_turn(client: LocalClient, server: ModelProcess, n: int) -> tuple[float, int]:
    """A turn that may make several model calls (memory flush, compaction): wall time and call count."""
    started = time.perf_counter()
    ended = await _follow(client, n)
    return ended - started, len(server.take())


async def one_turn(client: LocalClient, server: ModelProcess, marks: ProviderMarks, n: int) -> Turn:
    marks.called_at = marks.drained_at = marks.flushed_at = 0.0
    started = time.perf_counter()
    ended = await _follow(client, n)
    async with asyncio.timeout(10):
        while not marks.flushed_at:  # noqa: ASYNC110 (set by a worker thread: the index write after `end`)
            await asyncio.sleep(0.0002)
    requests = server.take()
    if len(requests) != 1:
        raise RuntimeError(f"turn {n} made {len(requests)} model requests, expected 1")
    request = requests[0]
    return Turn(
        to_provider=marks.called_at - started,
        to_server=request.received_at - started,
        from_model=ended - request.finished_at,
        client_tail=marks.drained_at - request.finished_at,
        end_to_end=(marks.flushed_at - started) - (request.finished_at - request.received_at),
        request_bytes=request.request_bytes,
        messages=request.messages,
    )


def print_turns(turns: list[Turn]) -> None:
    print(spread("(a) dispatch → model received", [t.to_server for t in turns]))
    print(spread("    claw: dispatch → provider.stream()", [t.to_provider for t in turns]))
    print(spread("    openai client + HTTP send", [t.openai_send for t in turns]))
    print(spread("(b) model last byte → `end` at client", [t.from_model for t in turns]))
    print(spread("    openai client: SSE parse → stream end", [t.client_tail for t in turns]))
    print(spread("    claw: stream end → `end` event", [t.claw_tail for t in turns]))
    print(spread("overhead (a)+(b)", [t.overhead for t in turns]))
    print(spread("claw only (without the openai client)", [t.claw_only for t in turns]))
    print(spread("end to end: dispatch → index written", [t.end_to_end for t in turns]))


async def run(args: argparse.Namespace, home: Path) -> int:
    with ModelProcess(MODEL) as server:
        paths = prepare_home(home, server, args.messages, args.seed, args.window)
        config = load_config(paths)
        marks = ProviderMarks()
        router = ModelRouter(
            config, provider_factory=lambda name, settings: TimedProvider(OpenAICompatProvider(name, settings), marks)
        )
        gateway = build_gateway(paths, config, router=router)
        time_index_writes(gateway.sessions("main"), marks)
        client = LocalClient(gateway)
        await gateway.start()
        try:
            wall, calls = await cold_turn(client, server, 0)
            print(
                f"first turn (cold: openai import, transcript parse, history build, compaction of the "
                f"{args.messages:,} messages if due): {ms(wall)}, {calls} model call(s)"
            )
            for n in range(args.warmup):
                await cold_turn(client, server, 1 + n)
            print(f"{machine_line()} fsync={ms(fsync_latency(home))}")
            started = time.perf_counter()
            turns = [await one_turn(client, server, marks, 1 + args.warmup + n) for n in range(args.turns)]
            total = time.perf_counter() - started
            print()
            await assembly.report(gateway, SESSION_KEY, MESSAGE.format(n=0), repeat=args.repeat)
            print()
        finally:
            await client.close()
    print(f"{args.turns} turns in {total:.2f} s ({total / args.turns * 1000:.2f} ms a turn, end to end)")
    last = turns[-1]
    print(f"each request: {last.messages} messages, {last.request_bytes / 1024:.0f} KB of JSON")
    print_turns(turns)
    overhead = percentile([t.overhead for t in turns], 50) * 1000
    claw_only = percentile([t.claw_only for t in turns], 50) * 1000
    end_to_end = percentile([t.end_to_end for t in turns], 50) * 1000
    print(f"disk: write 1 KB + fsync, median {ms(fsync_latency(home))} (record_turn does two fsyncs per turn)")
    return finish(
        [
            Target("turn overhead p50 (a)+(b)", overhead, 5.0, "ms"),
            Target("turn overhead p50, claw's part only (no openai client)", claw_only, 3.0, "ms"),
            Target("turn end to end p50, index write included", end_to_end, 7.0, "ms"),
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200, help="measured turns (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="turns before measuring (default 20)")
    parser.add_argument("--messages", type=int, default=10_000, help="transcript length (default 10,000)")
    parser.add_argument("--repeat", type=int, default=50, help="repetitions of each context-assembly step")
    parser.add_argument("--window", type=int, default=128_000, help="the model's context window in tokens")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="claw-bench-") as tmp:
        return asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    sys.exit(main())
