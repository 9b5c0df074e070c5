"""The webhook channel under load: 1,000 signed messages across 100 conversations, each answered at its replyUrl.

Run from the repo root:  python -m bench.channels_webhook  [--conversations 100] [--messages 10]

Everything is real: a `claw gateway run --port 0` process on a temporary CLAW_HOME with one hook
(`[channels.webhook.hooks.bench]`), the scripted model server (`ScriptedModelServer(instant=True)`,
tests/support) on 127.0.0.1 answering each turn with `re: <conversation> #<n>`, a reply receiver
on 127.0.0.1 (aiohttp, in this process), and HMAC-signed POSTs to `/hooks/bench`.

Each conversation is a sender that POSTs its messages one after another (the next once the previous
was acknowledged, as a provider would); all conversations send at once. Measured: throughput
(messages answered per second, first POST → last reply), the ack latency (POST → 200: verify,
normalise, inbox commit) and the end-to-end latency (POST → reply received). Checked: every message
answered exactly once (no loss; no duplicate — not even a resend with the same idempotency key),
each conversation's replies in the order its messages were sent, and gateway.db agreeing (every
inbox row `done`, every outbox row `sent`).

Targets: zero lost, duplicated or reordered replies; throughput above 20 messages/s.
"""

from __future__ import annotations

import argparse
import asyncio
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

from aiohttp import ClientSession, web

from bench.report import Target, finish, machine_line, spread
from claw.channels.webhook.adapter import sign
from tests.support.model_server import RecordedRequest, ScriptedModelServer, text

REPO = Path(__file__).resolve().parents[1]
SECRET = "bench-hook-secret-0123456789abcdef"
_MESSAGE = re.compile(r"msg (\S+) (\d+)")


def _answer(request: RecordedRequest) -> Any:
    found = _MESSAGE.search(request.messages[-1]["content"])
    return text(f"re: {found.group(1)} #{found.group(2)}" if found else "re: ?")


class Receiver:
    """Collects the replies: (conversation, n) → arrival times, and every idempotency key seen."""

    def __init__(self, expected: int) -> None:
        self.arrivals: dict[str, list[tuple[int, float]]] = {}
        self.keys: list[str] = []
        self.expected = expected
        self.done = asyncio.Event()

    async def handle(self, request: web.Request) -> web.Response:
        body = json.loads(await request.read())
        self.keys.append(body["idempotencyKey"])
        n = int(body["text"].rsplit("#", 1)[1])
        self.arrivals.setdefault(body["conversationId"], []).append((n, time.perf_counter()))
        if len(self.keys) >= self.expected:
            self.done.set()
        return web.json_response({"ok": True})


async def _conversation(session: ClientSession, url: str, conv: str, count: int, sent: dict, acks: list) -> None:
    for n in range(count):
        body = json.dumps({"eventId": f"{conv}-{n}", "conversationId": conv, "senderId": "bench",
                           "text": f"msg {conv} {n}"}).encode()  # fmt: skip
        stamp = str(int(time.time()))
        headers = {"Content-Type": "application/json", "X-Claw-Timestamp": stamp,
                   "X-Claw-Signature": sign(SECRET, stamp, body)}  # fmt: skip
        started = time.perf_counter()
        sent[(conv, n)] = started
        async with session.post(url, data=body, headers=headers) as response:
            assert response.status == 200, await response.text()
        acks.append(time.perf_counter() - started)


async def load(hook_url: str, receiver: Receiver, conversations: int, count: int, timeout: float) -> dict[str, Any]:
    sent: dict[tuple[str, int], float] = {}
    acks: list[float] = []
    started = time.perf_counter()
    async with ClientSession() as session:
        await asyncio.gather(
            *(_conversation(session, hook_url, f"c{i}", count, sent, acks) for i in range(conversations))
        )
    posted = time.perf_counter() - started
    try:
        await asyncio.wait_for(receiver.done.wait(), timeout)
    except TimeoutError:
        pass
    last = max((t for arrivals in receiver.arrivals.values() for _n, t in arrivals), default=time.perf_counter())
    latencies = [t - sent[(conv, n)] for conv, arrivals in receiver.arrivals.items() for n, t in arrivals]
    return {"elapsed": last - started, "posted": posted, "acks": acks, "latencies": latencies}


def check(receiver: Receiver, conversations: int, count: int, home: Path) -> tuple[int, int, int, list[str]]:
    """(lost, duplicated, out of order, problems); gateway.db not agreeing is a problem too."""
    problems: list[str] = []
    seen = {(conv, n) for conv, arrivals in receiver.arrivals.items() for n, _t in arrivals}
    expected = {(f"c{i}", n) for i in range(conversations) for n in range(count)}
    lost = len(expected - seen)
    duplicated = (
        len(receiver.keys)
        - len(set(receiver.keys))
        + sum(len(a) - len({n for n, _t in a}) for a in receiver.arrivals.values())
    )
    disorder = 0
    for conv, arrivals in receiver.arrivals.items():
        order = [n for n, _t in arrivals]
        if order != sorted(order):
            disorder += 1
            problems.append(f"{conv}: replies arrived as {order}")
    with sqlite3.connect(home / "gateway.db") as conn:
        inbox = dict(conn.execute("SELECT status, COUNT(*) FROM channel_inbox GROUP BY status").fetchall())
        outbox = dict(conn.execute("SELECT status, COUNT(*) FROM channel_outbox GROUP BY status").fetchall())
    if inbox != {"done": len(expected)} or outbox != {"sent": len(expected)}:
        problems.append(f"gateway.db: inbox {inbox}, outbox {outbox}")
    if lost:
        problems.append(f"{lost} message(s) without a reply, e.g. {sorted(expected - seen)[:5]}")
    return lost, duplicated, disorder, problems


async def serve_receiver(receiver: Receiver) -> web.AppRunner:
    app = web.Application()
    app.router.add_post("/replies", receiver.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return runner


async def run(args: argparse.Namespace, home: Path, env: dict[str, str]) -> tuple[dict[str, Any], Receiver]:
    receiver = Receiver(args.conversations * args.messages)
    runner = await serve_receiver(receiver)
    port = runner.addresses[0][1]
    config = home / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8")
        + f'\n[channels.webhook.hooks.bench]\nsecret = "{SECRET}"\nreplyUrl = "http://127.0.0.1:{port}/replies"\n',
        encoding="utf-8",
    )
    log = (home / "gateway.err").open("w")
    argv = [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"]
    gateway = await asyncio.to_thread(subprocess.Popen, argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=log)
    try:
        while not (home / "gateway.json").exists():
            assert gateway.poll() is None, (home / "gateway.err").read_text()
            await asyncio.sleep(0.05)
        gateway_port = json.loads((home / "gateway.json").read_text())["port"]
        hook_url = f"http://127.0.0.1:{gateway_port}/hooks/bench"
        result = await load(hook_url, receiver, args.conversations, args.messages, args.timeout)
    finally:
        gateway.terminate()
        gateway.wait(60)
        await runner.cleanup()
    return result, receiver


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--messages", type=int, default=10, help="per conversation")
    parser.add_argument("--max-concurrent", type=int, default=16, help="agents.defaults.maxConcurrent")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the last reply")
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(instant=True, default=_answer) as model:
        home = Path(tmp) / "home"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
        env.update(CLAW_HOME=str(home), OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="bench", CLAW_MODEL="m",
                   PYTHONPATH=str(REPO))  # fmt: skip
        for command in (["init"], ["config", "set", "agents.defaults.maxConcurrent", str(args.max_concurrent)]):
            subprocess.run([sys.executable, "-m", "claw", *command], env=env, cwd=REPO, check=True,
                           capture_output=True, timeout=120)  # fmt: skip
        result, receiver = asyncio.run(run(args, home, env))
        lost, duplicated, disorder, problems = check(receiver, args.conversations, args.messages, home)
        turns = len(model.chat_requests)
    total = args.conversations * args.messages
    print(f"{args.conversations} conversations × {args.messages} messages = {total} webhook messages "
          f"(maxConcurrent {args.max_concurrent}); all acknowledged in {result['posted']:.2f} s")  # fmt: skip
    print(f"answered in {result['elapsed']:.2f} s: {total / result['elapsed']:.1f} messages/s; "
          f"{turns} model turns, {len(receiver.keys)} reply POSTs")  # fmt: skip
    print(spread("ack latency (POST → 200, inbox committed)", result["acks"]))
    print(spread("end to end (POST → reply received)", result["latencies"]))
    print(f"lost {lost}, duplicated {duplicated}, conversations out of order {disorder}")
    for problem in problems[:20]:
        print("  " + problem)
    return finish(
        [
            Target("channels_webhook_lost", float(lost), 1, "count"),
            Target("channels_webhook_problems", float(len(problems)), 1, "count"),
            Target("channels_webhook_duplicated", float(duplicated + max(0, turns - total)), 1, "count"),
            Target("channels_webhook_out_of_order", float(disorder), 1, "count"),
            Target("channels_webhook_seconds_per_100_messages", 100 * result["elapsed"] / total, 5, "s"),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
