"""The failed-auth limiter under a flood: what the owner's token client sees while 1,000 requests without
credentials (then 1,000 wrong tokens) hit the gateway from the same address.

Run from the repo root:  python -m bench.auth_flood  [--flood 1000] [--concurrency 50] [--floods 5]

Everything is real: a `claw gateway run --port 0` process on a temporary CLAW_HOME (after `claw init`, with
one signed webhook hook), the scripted model server (`ScriptedModelServer(instant=True)`, tests/support) for
the turns the webhook messages start, and a flood from a separate process (`--flood-child`, aiohttp,
`--concurrency` requests at a time on 127.0.0.1, the owner's own address).

The token client does rounds one after another: `GET /v1/models` with the token (keep-alive), a new
WebSocket connection through `connect` and one `health` call (how every `claw agent` starts), and every
fifth round a correctly signed webhook POST. After a warm-up (until the gateway has run one webhook's
turn: its first turn imports the model client on the event loop), three phases:

1. quiet: `--quiet-rounds` rounds, no flood;
2. unauthenticated: `--floods` floods of `--flood` `GET /v1/models` without Authorization (the finding's
   `<img>` tag); only rounds that start and end inside a flood are kept;
3. wrong tokens: the same with a different wrong bearer token on every request (the address's wrong
   tokens lock out after 50, so most of these are answered 429).

Checked: every token-client request answered (HTTP 200, hello-ok, webhook 200) — none refused; every
unauthenticated flood request answered 401, never 429. Targets: those two counts zero, and the token
client's HTTP p99 during the unauthenticated flood under 500 ms (the machine is a noisy 2-core VM shared by
the gateway, the flood and this process: read the quiet figures beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.report import Target, finish, machine_line, percentile, spread

REPO = Path(__file__).resolve().parents[1]
SECRET = "bench-hook-secret-0123456789abcdef"
P99_LIMIT_S = 0.5
"""Half a second: where a person at `claw agent` starts to notice; the flood shares the event loop."""


@dataclass(frozen=True, slots=True)
class Round:
    """One round of the token client: when it ran, what each part took, and what went wrong (if anything)."""

    started: float
    ended: float
    http_s: float
    ws_s: float
    webhook_s: float | None
    problem: str


# --- the flood (child process) ------------------------------------------------------------------


async def _flood(url: str, count: int, concurrency: int, mode: str) -> dict[str, Any]:
    from aiohttp import ClientSession, TCPConnector

    statuses: Counter[int] = Counter()
    queue = iter(range(count))

    async def worker(session: ClientSession) -> None:
        for n in queue:
            headers = {"Authorization": f"Bearer wrong-{os.getpid()}-{n}"} if mode == "wrong" else {}
            async with session.get(f"{url}/v1/models", headers=headers) as response:
                await response.read()
                statuses[response.status] += 1

    async with ClientSession(connector=TCPConnector(limit=concurrency)) as session:
        started = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
        ended = time.perf_counter()
    return {"started": started, "ended": ended, "statuses": {str(k): v for k, v in statuses.items()}}


# --- the token client (this process) ------------------------------------------------------------


class TokenClient:
    """The owner: the HTTP API with the token, a fresh WebSocket `connect`, now and then a signed webhook."""

    def __init__(self, base: str, ws_url: str, token: str) -> None:
        self.base, self.ws_url, self.token = base, ws_url, token
        self.rounds: list[Round] = []
        self._n = 0

    async def run(self, *, rounds: int | None = None, until: asyncio.Event | None = None) -> None:
        from aiohttp import ClientSession

        async with ClientSession() as http:
            while (rounds is None or len(self.rounds) < rounds) and not (until is not None and until.is_set()):
                self.rounds.append(await self._round(http))

    async def _round(self, http: Any) -> Round:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        from claw.channels.webhook.adapter import sign

        self._n += 1
        started = time.perf_counter()
        async with http.get(f"{self.base}/v1/models", headers={"Authorization": f"Bearer {self.token}"}) as reply:
            await reply.read()
            http_status = reply.status
        after_http = time.perf_counter()
        try:
            async with connect(self.ws_url, compression=None, open_timeout=30) as ws:
                await ws.recv()  # connect.challenge: protocol 4's server speaks first
                hello = {"minProtocol": 4, "maxProtocol": 4, "role": "operator", "auth": {"token": self.token},
                         "client": {"id": "bench", "version": "1", "platform": "linux", "mode": "test"}}  # fmt: skip
                await ws.send(json.dumps({"type": "req", "id": "c", "method": "connect", "params": hello}))
                connected = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "req", "id": "h", "method": "health", "params": {}}))
                while (health := json.loads(await ws.recv())).get("type") != "res":
                    pass  # events (presence, tick) may come before the answer
        except InvalidStatus as exc:  # refused before the upgrade (what a lockout of the owner looked like)
            connected = health = {"ok": False, "error": f"upgrade refused: HTTP {exc.response.status_code}"}
        after_ws = time.perf_counter()
        webhook_s, hook_status = None, 200
        if self._n % 5 == 0:
            body = json.dumps({"eventId": f"owner-{self._n}-{time.time_ns()}", "conversationId": "bench",
                               "senderId": "owner", "text": "ping"}).encode()  # fmt: skip
            stamp = str(int(time.time()))
            headers = {"Content-Type": "application/json", "X-Claw-Timestamp": stamp,
                       "X-Claw-Signature": sign(SECRET, stamp, body)}  # fmt: skip
            async with http.post(f"{self.base}/hooks/bench", data=body, headers=headers) as reply:
                await reply.read()
                hook_status = reply.status
            webhook_s = time.perf_counter() - after_ws
        ended = time.perf_counter()
        ok = http_status == 200 and connected.get("ok") and health.get("ok") and hook_status == 200
        problem = "" if ok else f"http {http_status}, connect {connected.get('error')}, webhook {hook_status}"
        return Round(started, ended, after_http - started, after_ws - after_http, webhook_s, problem)


async def _phase(
    client: TokenClient, base: str, args: argparse.Namespace, mode: str
) -> tuple[list[Round], Counter[str], float]:
    """`args.floods` floods one after another while the client runs: the rounds that lie inside a flood,
    the flood's answers by status, and the seconds the floods took."""
    kept: list[Round] = []
    statuses: Counter[str] = Counter()
    seconds = 0.0
    for _ in range(args.floods):
        argv = ["-m", "bench.auth_flood", "--flood-child", base, str(args.flood), str(args.concurrency), mode]
        child = await asyncio.create_subprocess_exec(sys.executable, *argv, cwd=REPO, stdout=subprocess.PIPE)
        done = asyncio.Event()
        first = len(client.rounds)
        sampling = asyncio.ensure_future(client.run(until=done))
        raw, _ = await child.communicate()
        done.set()
        await sampling
        assert child.returncode == 0, "the flood process failed"
        result = json.loads(raw)
        statuses.update(result["statuses"])
        seconds += result["ended"] - result["started"]
        kept += [r for r in client.rounds[first:] if result["started"] <= r.started and r.ended <= result["ended"]]
    return kept, statuses, seconds


def _report(name: str, rounds: list[Round]) -> None:
    if not rounds:
        print(f"{name}: no round fell inside a flood (raise --flood)")
        return
    print(spread(f"{name}: HTTP /v1/models + token", [r.http_s for r in rounds]))
    print(spread(f"{name}: WS connect + health", [r.ws_s for r in rounds]))
    hooks = [r.webhook_s for r in rounds if r.webhook_s is not None]
    if hooks:
        print(spread(f"{name}: signed webhook POST", hooks))


async def _warm_up(client: TokenClient, model: Any) -> None:
    """Rounds until the gateway has run a webhook's turn: its first turn imports the model client and
    builds the agent's context on the event loop (seconds on a loaded VM), which no later round pays."""
    deadline = time.monotonic() + 120
    while not model.chat_requests:
        assert time.monotonic() < deadline, "no webhook turn reached the model within 120 s"
        await client.run(rounds=len(client.rounds) + 5)
    await client.run(rounds=len(client.rounds) + 10)
    client.rounds.clear()


async def _measure(base: str, ws_url: str, token: str, model: Any, args: argparse.Namespace) -> list[Target]:
    client = TokenClient(base, ws_url, token)
    await _warm_up(client, model)
    await client.run(rounds=args.quiet_rounds)
    quiet = list(client.rounds)
    unauthenticated, none_statuses, none_s = await _phase(client, base, args, "none")
    wrong, wrong_statuses, wrong_s = await _phase(client, base, args, "wrong")
    problems = [r.problem for r in client.rounds if r.problem]
    print(f"flood: {args.floods} × {args.flood} requests, {args.concurrency} at a time, from 127.0.0.1")
    for name, statuses, seconds in (
        ("unauthenticated", none_statuses, none_s),
        ("wrong-token", wrong_statuses, wrong_s),
    ):
        rate = args.floods * args.flood / seconds
        print(f"{name} flood: answered {dict(statuses)} in {seconds:.2f} s ({rate:.0f} requests/s)")
    print(f"token client: {len(client.rounds)} rounds, {len(problems)} refused or failed")
    for problem in problems[:10]:
        print("  " + problem)
    _report("quiet", quiet)
    _report("no-cred flood", unauthenticated)
    _report("bad-token flood", wrong)
    p99 = percentile([r.http_s for r in unauthenticated], 99) if unauthenticated else float("inf")
    return [
        Target("auth_flood_token_client_refused", float(len(problems)), 1, "count"),
        Target("auth_flood_unauthenticated_answered_429", float(none_statuses.get("429", 0)), 1, "count"),
        Target("auth_flood_token_http_p99", p99 * 1000, P99_LIMIT_S * 1000, "ms"),
    ]


def _claw(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "-m", "claw", *args], env=env, cwd=REPO, capture_output=True, check=True,
                   timeout=120)  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=1000, help="requests in one flood")
    parser.add_argument("--concurrency", type=int, default=50, help="flood requests in flight at once")
    parser.add_argument("--floods", type=int, default=5, help="floods per phase (more rounds inside floods)")
    parser.add_argument("--quiet-rounds", type=int, default=100)
    parser.add_argument("--flood-child", nargs=4, metavar=("URL", "COUNT", "CONCURRENCY", "MODE"),
                        help=argparse.SUPPRESS)  # fmt: skip
    args = parser.parse_args()
    if args.flood_child:
        url, count, concurrency, mode = args.flood_child
        print(json.dumps(asyncio.run(_flood(url, int(count), int(concurrency), mode))))
        return 0
    from tests.support.model_server import ScriptedModelServer

    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(instant=True) as model:
        home = Path(tmp) / "home"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
        env.update(CLAW_HOME=str(home), OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="bench", CLAW_MODEL="m")
        _claw(env, "init")
        config = home / "config.toml"
        config.write_text(
            config.read_text(encoding="utf-8") + f'\n[channels.webhook.hooks.bench]\nsecret = "{SECRET}"\n'
        )
        log = (Path(tmp) / "gateway.err").open("w")
        argv = [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"]
        gateway = subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=log)
        try:
            while not (home / "gateway.json").exists():
                assert gateway.poll() is None, f"the gateway did not start (see {log.name})"
                time.sleep(0.05)
            port = json.loads((home / "gateway.json").read_text())["port"]
            token = (home / "gateway.token").read_text().strip()
            base, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/"
            targets = asyncio.run(_measure(base, ws_url, token, model, args))
        finally:
            gateway.terminate()
            gateway.wait(30)
            log.close()
        lines = Path(log.name).read_text(encoding="utf-8", errors="replace").splitlines()
        noisy = [line for line in lines if "refused" in line or "auth:" in line]
        print(f"gateway log: {len(lines)} lines, {len(noisy)} of them about refused auth")
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
