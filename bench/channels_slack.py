"""The Slack channel under load: 1,000 signed Events API deliveries across 100 DM conversations, each answered with
`chat.postMessage` on the fake Slack.

Run from the repo root:  python -m bench.channels_slack  [--conversations 100] [--messages 10]

Everything is real: a `claw gateway run --port 0` process on a temporary CLAW_HOME with `[channels.slack]` in
events mode (`dmPolicy = "open"`; `ratePerSecond = 0`, as Slack's own limit of about one message per second per
channel is not what is measured; `session.dmScope = "per-channel-peer"`, so that each DM is its own session),
the scripted model server (`ScriptedModelServer(instant=True)`, tests/support) answering each turn with
`re: <conversation> #<n>`, and the fake Slack of the tests (tests/channels/slack_fake.py: the Web API, and
the signing Events API sender) on 127.0.0.1.

Each conversation is one user's DM; its messages are POSTed one after another (the next once the previous was
acknowledged, as Slack does), all conversations at once. Measured: throughput (first POST → last reply), the ack
latency (POST → 200: signature, users.info on a user's first message, inbox commit) and end to end (POST → the
reply's chat.postMessage). Checked: every message answered exactly once, each conversation's replies in order,
gateway.db agreeing (every inbox row `done`, every outbox row `sent`).

One warm-up message is answered before the load and left out of every number (its ack is printed).
Targets: zero lost, duplicated or reordered replies; ack latency p99 under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import ClientSession

from bench.report import Target, finish, machine_line, percentile, spread
from tests.channels.slack_fake import BOT_TOKEN, SIGNING_SECRET, FakeSlack, message, sign
from tests.support.model_server import RecordedRequest, ScriptedModelServer, text

REPO = Path(__file__).resolve().parents[1]
_MESSAGE = re.compile(r"msg (\S+) (\d+)")
WARM_UP = 9_999_999
"""The warm-up conversation's number (`cWARM_UP`), left out of every count."""


def _answer(request: RecordedRequest) -> Any:
    found = _MESSAGE.search(request.messages[-1]["content"])
    return text(f"re: {found.group(1)} #{found.group(2)}" if found else "re: ?")


async def _conversation(session: ClientSession, url: str, conv: int, count: int, sent: dict, acks: list) -> None:
    for n in range(count):
        callback = message(f"msg c{conv} {n}", channel=f"D{conv:07d}", user=f"U{conv:07d}")
        body = json.dumps(callback).encode()
        stamp = str(int(time.time()))
        headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": stamp,
                   "X-Slack-Signature": sign(body, stamp)}  # fmt: skip
        started = time.perf_counter()
        sent[(f"c{conv}", n)] = started
        async with session.post(url, data=body, headers=headers) as response:
            assert response.status == 200, await response.text()
        acks.append(time.perf_counter() - started)


def replies(fake: FakeSlack) -> dict[str, list[tuple[int, float]]]:
    """Conversation → (n, when the chat.postMessage arrived), in arrival order."""
    found: dict[str, list[tuple[int, float]]] = {}
    for call in fake.posts():
        hit = re.match(r"re: (\S+) #(\d+)", call.params["text"])
        if hit:
            found.setdefault(hit.group(1), []).append((int(hit.group(2)), call.at))
    return found


async def warm_up(url: str, fake: FakeSlack, timeout: float) -> float:
    """One message answered before the load: the gateway's first turn pays one-time costs (imports, the model
    client) that would otherwise show as one stall in every conversation's ack. Returns its ack latency."""
    acks: list[float] = []
    async with ClientSession() as session:
        await _conversation(session, url, WARM_UP, 1, {}, acks)
    await asyncio.to_thread(fake.wait_until, lambda: fake.posts(), timeout, "the warm-up reply")
    return acks[0]


async def load(url: str, fake: FakeSlack, conversations: int, count: int, timeout: float) -> dict[str, Any]:
    sent: dict[tuple[str, int], float] = {}
    acks: list[float] = []
    started = time.perf_counter()
    async with ClientSession() as session:
        await asyncio.gather(*(_conversation(session, url, i, count, sent, acks) for i in range(conversations)))
    posted = time.perf_counter() - started
    with contextlib.suppress(AssertionError):  # timed out: what is missing is counted as lost
        await asyncio.to_thread(fake.wait_until, lambda: len(fake.posts()) > conversations * count, timeout)
    offset = time.perf_counter() - time.monotonic()  # the fake stamps calls with time.monotonic()
    arrivals = replies(fake)
    arrivals.pop(f"c{WARM_UP}", None)
    last = max((t + offset for a in arrivals.values() for _n, t in a), default=time.perf_counter())
    latencies = [t + offset - sent[(conv, n)] for conv, a in arrivals.items() for n, t in a]
    return {"elapsed": last - started, "posted": posted, "acks": acks, "latencies": latencies, "arrivals": arrivals}


def check(arrivals: dict[str, list[tuple[int, float]]], conversations: int, count: int,
          home: Path) -> tuple[int, int, int, list[str]]:  # fmt: skip
    """(lost, duplicated, out of order, problems); gateway.db not agreeing is a problem too."""
    problems: list[str] = []
    seen = {(conv, n) for conv, a in arrivals.items() for n, _t in a}
    expected = {(f"c{i}", n) for i in range(conversations) for n in range(count)}
    lost = len(expected - seen)
    duplicated = sum(len(a) - len({n for n, _t in a}) for a in arrivals.values())
    disorder = 0
    for conv, a in arrivals.items():
        order = [n for n, _t in a]
        if order != sorted(order):
            disorder += 1
            problems.append(f"{conv}: replies arrived as {order}")
    with sqlite3.connect(home / "gateway.db") as conn:
        inbox = dict(conn.execute("SELECT status, COUNT(*) FROM channel_inbox GROUP BY status").fetchall())
        outbox = dict(conn.execute("SELECT status, COUNT(*) FROM channel_outbox GROUP BY status").fetchall())
    if inbox != {"done": len(expected) + 1} or outbox != {"sent": len(expected) + 1}:  # + the warm-up
        problems.append(f"gateway.db: inbox {inbox}, outbox {outbox}")
    if lost:
        problems.append(f"{lost} message(s) without a reply, e.g. {sorted(expected - seen)[:5]}")
    return lost, duplicated, disorder, problems


async def run(args: argparse.Namespace, home: Path, env: dict[str, str], fake: FakeSlack) -> dict[str, Any]:
    config = home / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8")
        + f'\n[channels.slack]\nbotToken = "{BOT_TOKEN}"\nsigningSecret = "{SIGNING_SECRET}"\n'
        f'apiBaseUrl = "{fake.api_base}"\ndmPolicy = "open"\nallowFrom = ["*"]\nratePerSecond = 0\n',
        encoding="utf-8",
    )
    log = (home / "gateway.err").open("w")
    argv = [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"]
    gateway = await asyncio.to_thread(subprocess.Popen, argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=log)
    try:
        while not (home / "gateway.json").exists() or not fake.calls_of("auth.test"):
            assert gateway.poll() is None, (home / "gateway.err").read_text()
            await asyncio.sleep(0.05)
        port = json.loads((home / "gateway.json").read_text())["port"]
        url = f"http://127.0.0.1:{port}/slack/default"
        first_ack = await warm_up(url, fake, args.timeout)
        return {**await load(url, fake, args.conversations, args.messages, args.timeout), "first_ack": first_ack}
    finally:
        gateway.terminate()
        gateway.wait(60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--messages", type=int, default=10, help="per conversation")
    parser.add_argument("--max-concurrent", type=int, default=16, help="agents.defaults.maxConcurrent")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the last reply")
    args = parser.parse_args()
    print(machine_line())
    fake = FakeSlack()
    for i in range(args.conversations):
        fake.users[f"U{i:07d}"] = {"id": f"U{i:07d}", "name": f"user{i}", "profile": {"display_name": f"User {i}"}}
    fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(instant=True, default=_answer) as model:
            home = Path(tmp) / "home"
            env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_", "SLACK_"))}
            env.update(CLAW_HOME=str(home), OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="bench", CLAW_MODEL="m",
                       PYTHONPATH=str(REPO))  # fmt: skip
            for command in (["init"], ["config", "set", "agents.defaults.maxConcurrent", str(args.max_concurrent)],
                            ["config", "set", "session.dmScope", "per-channel-peer"]):  # fmt: skip
                subprocess.run([sys.executable, "-m", "claw", *command], env=env, cwd=REPO, check=True,
                               capture_output=True, timeout=120)  # fmt: skip
            result = asyncio.run(run(args, home, env, fake))
            lost, duplicated, disorder, problems = check(result["arrivals"], args.conversations, args.messages, home)
            turns = len(model.chat_requests) - 1  # the warm-up's
    finally:
        fake.stop()
    total = args.conversations * args.messages
    print(f"{args.conversations} conversations × {args.messages} messages = {total} Slack events "
          f"(maxConcurrent {args.max_concurrent}); all acknowledged in {result['posted']:.2f} s")  # fmt: skip
    print(f"answered in {result['elapsed']:.2f} s: {total / result['elapsed']:.1f} messages/s; "
          f"{turns} model turns, {len(fake.posts()) - 1} chat.postMessage calls (warm-up excluded)")  # fmt: skip
    print(f"warm-up: the gateway's very first message was acknowledged in {1000 * result['first_ack']:.0f} ms")
    print(spread("ack latency (POST → 200, inbox committed)", result["acks"]))
    print(spread("end to end (POST → chat.postMessage)", result["latencies"]))
    print(f"lost {lost}, duplicated {duplicated}, conversations out of order {disorder}")
    for problem in problems[:20]:
        print("  " + problem)
    return finish(
        [
            Target("channels_slack_lost", float(lost), 1, "count"),
            Target("channels_slack_problems", float(len(problems)), 1, "count"),
            Target("channels_slack_duplicated", float(duplicated + max(0, turns - total)), 1, "count"),
            Target("channels_slack_out_of_order", float(disorder), 1, "count"),
            Target("channels_slack_ack_p99_ms", 1000 * percentile(result["acks"], 99), 100, "ms"),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
