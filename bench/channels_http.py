"""A chat platform's HTTP delivery style under load: 1,000 signed events across 100 conversations.

Run from the repo root:  python -m bench.channels_http --platform feishu|dingtalk  [--conversations 100] [--messages 10]

Everything is real but the platform: a `claw gateway run --port 0` process on a temporary CLAW_HOME with
the platform's channel in its HTTP mode pointed at the fake of the tests (tests/channels/feishu_fake.py:
encrypted, signed `im.message.receive_v1` events, replies to `im/v1/messages/{id}/reply`;
tests/channels/dingtalk_fake.py: `timestamp` + `sign` callbacks, replies through the session webhook),
and the scripted model server in instant mode answering each turn with `re: <conversation> #<n>`.
Each conversation is one user in a direct chat with a session of its own
(`session.dmScope = "per-channel-peer"`), sending its messages one after another, the next once the
previous was acknowledged, as the platform would; all conversations send at once.

Measured: throughput (messages answered per second, first POST → last reply seen by the fake), the ack
latency (POST → 200: verify, decrypt, normalise, inbox commit). Checked: every message answered exactly
once, each conversation's replies in the order its messages were sent, and gateway.db agreeing (every
inbox row `done`, every outbox row `sent`).

Targets: zero lost, duplicated or reordered replies; ack p99 under 100 ms (Slack's 3 s, Feishu's and
DingTalk's own timeouts are far above); under 5 s per 100 messages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import ClientSession

from bench.report import Target, finish, machine_line, spread
from tests.channels.fakes import _Threaded
from tests.support.model_server import RecordedRequest, ScriptedModelServer, text

REPO = Path(__file__).resolve().parents[1]
_MESSAGE = re.compile(r"msg (c\d+) (\d+)")
_REPLY = re.compile(r"re: (c\d+) #(\d+)")


def _answer(request: RecordedRequest) -> Any:
    found = _MESSAGE.search(str(request.messages[-1]["content"]))
    return text(f"re: {found.group(1)} #{found.group(2)}" if found else "re: ?")


@dataclass
class Platform:
    """How the bench drives one platform: its fake, its config, one signed delivery, and the replies seen."""

    name: str
    fake: _Threaded
    config: Callable[[int], str]
    """Number of conversations → the `[channels.<name>]` table (every conversation's sender allowed)."""
    request: Callable[[str, int, int], urllib.request.Request]
    """(gateway base URL, conversation, n) → the platform's signed POST of message n of that conversation."""
    replies: Callable[[], list[str]]
    """The reply texts the fake received, in arrival order."""


def feishu() -> Platform:
    from tests.channels.feishu_fake import APP_ID, APP_SECRET, ENCRYPT_KEY, VERIFY_TOKEN, FakeFeishu
    from tests.channels.feishu_fake import event_request, message_event

    fake = FakeFeishu().start()

    def config(conversations: int) -> str:
        users = ", ".join(f'"ou_c{i}"' for i in range(conversations))
        return (f'\n[channels.feishu]\nappId = "{APP_ID}"\nappSecret = "{APP_SECRET}"\nencryptKey = "{ENCRYPT_KEY}"\n'
                f'verificationToken = "{VERIFY_TOKEN}"\napiBaseUrl = "{fake.url}"\nallowFrom = [{users}]\n')  # fmt: skip

    def request(base: str, conv: int, n: int) -> urllib.request.Request:
        event = message_event(f"msg c{conv} {n}", sender=f"ou_c{conv}", chat_id=f"oc_c{conv}")
        return event_request(f"{base}/feishu/default", event)

    return Platform("feishu", fake, config, request, lambda: [r["markdown"] for r in fake.replies()])


def dingtalk() -> Platform:
    from tests.channels.dingtalk_fake import CLIENT_ID, CLIENT_SECRET, FakeDingTalk, callback_request

    fake = FakeDingTalk().start()

    def config(conversations: int) -> str:
        users = ", ".join(f'"staff-c{i}"' for i in range(conversations))
        return (f'\n[channels.dingtalk]\nmode = "http"\nclientId = "{CLIENT_ID}"\nclientSecret = "{CLIENT_SECRET}"\n'
                f'apiBaseUrl = "{fake.url}"\nallowFrom = [{users}]\n')  # fmt: skip

    def request(base: str, conv: int, n: int) -> urllib.request.Request:
        return callback_request(f"{base}/dingtalk/default", fake.message(f"msg c{conv} {n}", sender=f"staff-c{conv}"))

    return Platform("dingtalk", fake, config, request, lambda: [r["text"] for r in fake.replies()])


PLATFORMS: dict[str, Callable[[], Platform]] = {"feishu": feishu, "dingtalk": dingtalk}


async def _conversation(session: ClientSession, platform: Platform, base: str, conv: int, count: int,
                        acks: list[float]) -> None:  # fmt: skip
    for n in range(count):
        request = platform.request(base, conv, n)
        started = time.perf_counter()
        async with session.post(request.full_url, data=request.data, headers=dict(request.header_items())) as answer:
            assert answer.status == 200, await answer.text()
            await answer.read()
        acks.append(time.perf_counter() - started)


async def load(platform: Platform, base: str, conversations: int, count: int, timeout: float) -> dict[str, Any]:
    acks: list[float] = []
    started = time.perf_counter()
    async with ClientSession() as session:
        await asyncio.gather(*(_conversation(session, platform, base, i, count, acks) for i in range(conversations)))
    posted = time.perf_counter() - started
    total, deadline, seen, last = conversations * count, time.monotonic() + timeout, 0, time.perf_counter()
    while time.monotonic() < deadline:
        now = len(platform.replies())
        if now != seen:
            seen, last = now, time.perf_counter()
        if seen >= total:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.5)  # a duplicate would come now
    return {"elapsed": last - started, "posted": posted, "acks": acks}


def check(platform: Platform, conversations: int, count: int, home: Path) -> dict[str, Any]:
    problems: list[str] = []
    arrivals: dict[str, list[int]] = {}
    for reply in platform.replies():
        found = _REPLY.search(reply)
        if found is None:
            problems.append(f"unexpected reply {reply[:60]!r}")
            continue
        arrivals.setdefault(found.group(1), []).append(int(found.group(2)))
    seen = [(conv, n) for conv, ns in arrivals.items() for n in ns]
    expected = {(f"c{i}", n) for i in range(conversations) for n in range(count)}
    lost, duplicated = len(expected - set(seen)), len(seen) - len(set(seen))
    disorder = sum(1 for ns in arrivals.values() if ns != sorted(ns))
    problems += [f"{conv}: replies arrived as {ns}" for conv, ns in arrivals.items() if ns != sorted(ns)]
    with sqlite3.connect(home / "gateway.db") as conn:
        inbox = dict(conn.execute("SELECT status, COUNT(*) FROM channel_inbox GROUP BY status").fetchall())
        outbox = dict(conn.execute("SELECT status, COUNT(*) FROM channel_outbox GROUP BY status").fetchall())
    if inbox != {"done": len(expected)} or outbox != {"sent": len(expected)}:
        problems.append(f"gateway.db: inbox {inbox}, outbox {outbox}")
    if lost:
        problems.append(f"{lost} message(s) without a reply, e.g. {sorted(expected - set(seen))[:5]}")
    return {"lost": lost, "duplicated": duplicated, "disorder": disorder, "problems": problems}


async def run(args: argparse.Namespace, platform: Platform, home: Path, env: dict[str, str]) -> dict[str, Any]:
    with (home / "config.toml").open("a", encoding="utf-8") as handle:
        handle.write(platform.config(args.conversations))
    log = (home / "gateway.err").open("w")
    argv = [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"]
    gateway = await asyncio.to_thread(subprocess.Popen, argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=log)
    try:
        while not (home / "gateway.json").exists():
            if gateway.poll() is not None:
                raise SystemExit(f"the gateway exited:\n{(home / 'gateway.err').read_text()}")
            await asyncio.sleep(0.05)
        import json

        port = json.loads((home / "gateway.json").read_text())["port"]
        return await load(platform, f"http://127.0.0.1:{port}", args.conversations, args.messages, args.timeout)
    finally:
        gateway.terminate()
        await asyncio.to_thread(gateway.wait, 60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", choices=sorted(PLATFORMS), required=True)
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--messages", type=int, default=10, help="per conversation")
    parser.add_argument("--max-concurrent", type=int, default=16, help="agents.defaults.maxConcurrent")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the last reply")
    args = parser.parse_args()
    print(machine_line())
    platform = PLATFORMS[args.platform]()
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
        result = asyncio.run(run(args, platform, home, env))
        verdict = check(platform, args.conversations, args.messages, home)
        turns = len(model.chat_requests)
    platform.fake.stop()
    total = args.conversations * args.messages
    print(f"{args.conversations} conversations × {args.messages} messages = {total} {args.platform} events "
          f"(maxConcurrent {args.max_concurrent}); all acknowledged in {result['posted']:.2f} s")  # fmt: skip
    print(f"answered in {result['elapsed']:.2f} s: {total / result['elapsed']:.1f} messages/s; "
          f"{turns} model turns, {len(platform.replies())} replies")  # fmt: skip
    print(spread("ack latency (POST → 200, inbox committed)", result["acks"]))
    print(f"lost {verdict['lost']}, duplicated {verdict['duplicated']}, "
          f"conversations out of order {verdict['disorder']}")  # fmt: skip
    for problem in verdict["problems"][:20]:
        print("  " + problem)
    acks = sorted(result["acks"])
    p99 = acks[min(len(acks) - 1, int(len(acks) * 0.99))] if acks else float("inf")
    name = f"channels_{args.platform}"
    return finish(
        [
            Target(f"{name}_lost", float(verdict["lost"]), 1, "count"),
            Target(f"{name}_problems", float(len(verdict["problems"])), 1, "count"),
            Target(f"{name}_duplicated", float(verdict["duplicated"] + max(0, turns - total)), 1, "count"),
            Target(f"{name}_out_of_order", float(verdict["disorder"]), 1, "count"),
            Target(f"{name}_ack_p99", p99 * 1000, 100, "ms"),
            Target(f"{name}_seconds_per_100_messages", 100 * result["elapsed"] / total, 5, "s"),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
