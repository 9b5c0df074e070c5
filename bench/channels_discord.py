"""The Discord adapter under load: 1,000 direct messages from 100 users, each answered by a REST post.

Run from the repo root:  python -m bench.channels_discord  [--conversations 100] [--messages 10]

Everything is real but Discord: a `claw gateway run --port 0` process on a temporary CLAW_HOME with
`[channels.discord]` pointed at the fake Discord of the tests (tests/channels/discord_fake.py: the
gateway WebSocket with Hello, heartbeats, Identify/Ready and numbered dispatches, and REST with
per-channel rate-limit buckets announced in `X-RateLimit-*` headers, a 429 past them), and the
scripted model server in instant mode answering each turn with `re: <conversation> #<n>`. Each user
has a session of their own (`session.dmScope = "per-channel-peer"`): under the default `main` scope all
DMs share one session, and messages queued behind a run are answered together, as they should be.

Once the adapter has identified, the fake dispatches every user's messages as `MESSAGE_CREATE`
events, round robin (user 0's first, user 1's first, …), as fast as it can: Discord does not wait for
a bot. Measured: throughput (messages answered per second, first dispatch → last reply), the
delivery latency (dispatch → inbox row committed, from the row's `received_at`; Discord has no ack,
so this is what an ack would cost) and the end-to-end latency (dispatch → reply posted). Checked:
every message answered exactly once, each DM channel's replies in the order its messages were sent,
and gateway.db agreeing (every inbox row `done`, every outbox row `sent`).

Targets: zero lost, duplicated or reordered replies; under 5 s per 100 messages. The fake enforces
Discord's per-channel bucket (`--bucket`, 5 posts per channel per second by default), so a user's ten
replies take two seconds however fast the rest is.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import Target, finish, machine_line, spread
from tests.channels.discord_fake import DISCORD_TOKEN, FakeDiscord, dm
from tests.support.model_server import RecordedRequest, ScriptedModelServer, text

REPO = Path(__file__).resolve().parents[1]
_MESSAGE = re.compile(r"msg (c\d+) (\d+)")
_REPLY = re.compile(r"re: (c\d+) #(\d+)")


def _answer(request: RecordedRequest) -> Any:
    found = _MESSAGE.search(str(request.messages[-1]["content"]))
    return text(f"re: {found.group(1)} #{found.group(2)}" if found else "re: ?")


def _user(conv: int) -> str:
    return str(1000 + conv)


def config(fake: FakeDiscord, conversations: int) -> str:
    users = ", ".join(f'"{_user(i)}"' for i in range(conversations))
    return (
        f'\n[channels.discord]\nbotToken = "{DISCORD_TOKEN}"\napiBaseUrl = "{fake.api_base}"\n'
        f'gatewayUrl = "{fake.gateway_url}"\nallowFrom = [{users}]\n'
    )


def wait(predicate: Any, timeout: float, what: str, gateway: subprocess.Popen[bytes], home: Path) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if gateway.poll() is not None:
            raise SystemExit(f"the gateway exited while waiting for {what}:\n{(home / 'gateway.err').read_text()}")
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def load(fake: FakeDiscord, conversations: int, count: int) -> tuple[dict[str, tuple[str, int, float, float]], float]:
    """Dispatch every message; message id → (conversation, n, wall time, monotonic time) of its dispatch."""
    sent: dict[str, tuple[str, int, float, float]] = {}
    started = time.monotonic()
    for n in range(count):
        for i in range(conversations):
            event = dm(f"msg c{i} {n}", user_id=_user(i))
            wall, mono = time.time(), time.monotonic()
            fake.dispatch("MESSAGE_CREATE", event)
            sent[event["id"]] = (f"c{i}", n, wall, mono)
    return sent, started


def check(fake: FakeDiscord, sent: dict[str, tuple[str, int, float, float]], home: Path) -> dict[str, Any]:
    by_dispatch = {(conv, n): mono for conv, n, _wall, mono in sent.values()}
    arrivals: dict[str, list[tuple[int, float]]] = {}
    problems: list[str] = []
    for post in fake.posts():
        found = _REPLY.fullmatch(post.body.get("content", "").strip())
        if not found:
            problems.append(f"unexpected reply {post.body.get('content')!r}")
            continue
        conv, n = found.group(1), int(found.group(2))
        if post.path != f"/channels/7{_user(int(conv[1:]))}/messages":
            problems.append(f"{conv} #{n} answered in {post.path}")
        arrivals.setdefault(conv, []).append((n, post.at))
    seen = [(conv, n) for conv, got in arrivals.items() for n, _t in got]
    lost = len(set(by_dispatch) - set(seen))
    duplicated = len(seen) - len(set(seen))
    disorder = 0
    for conv, got in arrivals.items():
        order = [n for n, _t in got]
        if order != sorted(order):
            disorder += 1
            problems.append(f"{conv}: replies arrived as {order}")
    latencies = [at - by_dispatch[(c, n)] for c, got in arrivals.items() for n, at in got if (c, n) in by_dispatch]
    with sqlite3.connect(home / "gateway.db") as conn:
        inbox = dict(conn.execute("SELECT status, COUNT(*) FROM channel_inbox GROUP BY status").fetchall())
        outbox = dict(conn.execute("SELECT status, COUNT(*) FROM channel_outbox GROUP BY status").fetchall())
        received = conn.execute("SELECT dedupe_key, received_at FROM channel_inbox").fetchall()
    deliveries = [at - sent[key.rsplit("|", 1)[1]][2] for key, at in received if key.rsplit("|", 1)[1] in sent]
    if inbox != {"done": len(sent)} or outbox != {"sent": len(sent)}:
        problems.append(f"gateway.db: inbox {inbox}, outbox {outbox}")
    if lost:
        problems.append(f"{lost} message(s) without a reply, e.g. {sorted(set(by_dispatch) - set(seen))[:5]}")
    last = max((t for got in arrivals.values() for _n, t in got), default=time.monotonic())
    return {"lost": lost, "duplicated": duplicated, "disorder": disorder, "problems": problems,
            "latencies": latencies, "deliveries": deliveries, "last": last}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--messages", type=int, default=10, help="per conversation")
    parser.add_argument("--max-concurrent", type=int, default=16, help="agents.defaults.maxConcurrent")
    parser.add_argument("--bucket", type=int, default=5, help="the fake's messages per channel per second")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the last reply")
    args = parser.parse_args()
    total = args.conversations * args.messages
    print(machine_line())
    fake = FakeDiscord(bucket_limit=args.bucket, bucket_window=1.0).start()
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(instant=True, default=_answer) as model:
        home = Path(tmp) / "home"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
        env.update(CLAW_HOME=str(home), OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="bench", CLAW_MODEL="m",
                   PYTHONPATH=str(REPO))  # fmt: skip
        for command in (
            ["init"],
            ["config", "set", "agents.defaults.maxConcurrent", str(args.max_concurrent)],
            ["config", "set", "session.dmScope", "per-channel-peer"],  # a session per user, not all in main
        ):
            subprocess.run([sys.executable, "-m", "claw", *command], env=env, cwd=REPO, check=True,
                           capture_output=True, timeout=120)  # fmt: skip
        with (home / "config.toml").open("a", encoding="utf-8") as handle:
            handle.write(config(fake, args.conversations))
        log = (home / "gateway.err").open("w")
        argv = [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"]
        gateway = subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=log)
        try:
            wait(lambda: fake.identifies and fake._current, 60, "an identified session", gateway, home)
            sent, started = load(fake, args.conversations, args.messages)
            dispatched = time.monotonic() - started
            wait(lambda: len(fake.posts()) >= total, args.timeout, "the last reply", gateway, home)
            time.sleep(0.5)  # a duplicate would come now
        finally:
            gateway.terminate()
            gateway.wait(60)
        result = check(fake, sent, home)
        turns = len(model.chat_requests)
        limited = sum(1 for r in fake.rest if r.status == 429)
    fake.stop()
    elapsed = result["last"] - started
    print(f"{args.conversations} users × {args.messages} DMs = {total} Discord messages "
          f"(maxConcurrent {args.max_concurrent}, {args.bucket} posts/channel/s); "
          f"all dispatched in {dispatched:.2f} s")  # fmt: skip
    print(f"answered in {elapsed:.2f} s: {total / elapsed:.1f} messages/s; {turns} model turns, "
          f"{len(fake.posts())} reply posts, {limited} REST 429s waited out")  # fmt: skip
    print(spread("delivery (dispatch → inbox committed)", result["deliveries"]))
    print(spread("end to end (dispatch → reply posted)", result["latencies"]))
    print(f"lost {result['lost']}, duplicated {result['duplicated']}, conversations out of order {result['disorder']}")
    for problem in result["problems"][:20]:
        print("  " + problem)
    return finish(
        [
            Target("channels_discord_lost", float(result["lost"]), 1, "count"),
            Target("channels_discord_problems", float(len(result["problems"])), 1, "count"),
            Target("channels_discord_duplicated", float(result["duplicated"] + max(0, turns - total)), 1, "count"),
            Target("channels_discord_out_of_order", float(result["disorder"]), 1, "count"),
            Target("channels_discord_seconds_per_100_messages", 100 * elapsed / total, 5, "s"),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
