"""The gateway server under load, and `claw agent -m` through a running gateway.

Run from the repo root:  python -m bench.gateway_clients  [--clients 100] [--turns 10] [--agent-runs 15]

Everything is real: a `claw gateway run --port 0` process on a temporary CLAW_HOME, the
scripted model server (`ScriptedModelServer(instant=True)`, tests/support) on 127.0.0.1
answering each turn with `ack <message>`, and real WebSocket clients.

1. Load: `--clients` WebSocket connections (raw `websockets` clients speaking the protocol),
   each in its own session, each sending `--turns` `agent` requests one after another.
   Reported: throughput (turns/s over the whole load), turn latency (request sent → final
   `res` received) p50/p99. Checked for every turn: the per-run event seqs are exactly
   1..n with one terminal `end`, the streamed text is `ack <message>`, the final `res`
   matches; for every connection: event frame `seq` is exactly 1..m (nothing lost or
   duplicated on the wire); for every session: the transcript holds the turns in the
   order they were sent.
2. `claw agent -m` wall time: a whole `python -m claw agent -m ping` process through the
   running gateway, `--agent-runs` times (first run discarded as warm-up); for comparison the
   same before the gateway starts, when each process runs its own in-process gateway.

Targets: `claw agent -m` through a gateway p50 under 0.3 s (issue 13; issue 2 asked for 0.4 s); the load run
lossless and in order.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.process import user_env
from bench.report import Target, finish, machine_line, spread
from tests.support.model_server import RecordedRequest, ScriptedModelServer, text

REPO = Path(__file__).resolve().parents[1]


def _ack(request: RecordedRequest) -> Any:
    return text(f"ack {request.messages[-1]['content']}")


def _claw(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claw", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )


class Conn:
    """One raw protocol client that checks everything it receives."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frame_seqs: list[int] = []
        self.ids = 0

    async def request(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Send; return the last `res` for it (the final one for `agent`) and the run events seen meanwhile."""
        self.ids += 1
        frame_id = str(self.ids)
        await self.ws.send(json.dumps({"type": "req", "id": frame_id, "method": method, "params": params}))
        events: list[dict[str, Any]] = []
        answers = 0
        while True:
            frame = json.loads(await self.ws.recv())
            if frame["type"] == "event":
                self.frame_seqs.append(frame["seq"])
                if frame["event"] == "agent":
                    events.append(frame["payload"])
                continue
            assert frame["id"] == frame_id and frame["ok"], frame
            answers += 1
            if method != "agent" or answers == 2:
                return frame, events


async def _client(url: str, token: str, index: int, turns: int, latencies: list[float]) -> list[str]:
    from websockets.asyncio.client import connect

    problems: list[str] = []
    async with connect(url, max_size=None, compression=None) as ws:
        conn = Conn(ws)
        assert json.loads(await ws.recv())["event"] == "connect.challenge"  # protocol 4: the server speaks first
        params = {
            "minProtocol": 4,
            "maxProtocol": 4,
            "client": {"id": "test", "version": "1", "platform": "linux", "mode": "test"},
            "role": "operator",
            "scopes": ["operator.admin"],
            "auth": {"token": token},
        }
        await ws.send(json.dumps({"type": "req", "id": "c", "method": "connect", "params": params}))
        assert json.loads(await ws.recv())["ok"]
        session = f"agent:main:bench-{index}"
        for turn in range(turns):
            message = f"client {index} turn {turn}"
            started = time.perf_counter()
            final, events = await conn.request(
                "agent", {"message": message, "sessionKey": session, "idempotencyKey": f"{index}-{turn}"}
            )
            latencies.append(time.perf_counter() - started)
            seqs = [e["seq"] for e in events]
            terminal = [e for e in events if e["stream"] == "lifecycle" and e["data"]["phase"] in ("end", "error")]
            streamed = "".join(e["data"].get("delta", "") for e in events if e["stream"] == "assistant")
            if seqs != list(range(1, len(seqs) + 1)):
                problems.append(f"{session} turn {turn}: run event seqs {seqs}")
            if len(terminal) != 1 or terminal[0]["data"]["phase"] != "end":
                problems.append(f"{session} turn {turn}: terminal events {terminal}")
            if streamed != f"ack {message}" or final["payload"]["text"] != f"ack {message}":
                problems.append(f"{session} turn {turn}: got {streamed!r} / {final['payload']['text']!r}")
        if conn.frame_seqs != list(range(1, len(conn.frame_seqs) + 1)):
            problems.append(f"{session}: connection event seqs are not 1..n")
        history, _ = await conn.request("chat.history", {"sessionKey": session})
        users = [m["content"] for m in history["payload"]["messages"] if m["role"] == "user"]
        if users != [f"client {index} turn {t}" for t in range(turns)]:
            problems.append(f"{session}: transcript order {users}")
    return problems


async def load(url: str, token: str, clients: int, turns: int) -> tuple[float, list[float], list[str]]:
    latencies: list[float] = []
    started = time.perf_counter()
    results = await asyncio.gather(*(_client(url, token, i, turns, latencies) for i in range(clients)))
    elapsed = time.perf_counter() - started
    return elapsed, latencies, [p for problems in results for p in problems]


def agent_walls(env: dict[str, str], runs: int) -> list[float]:
    walls = []
    for n in range(runs + 1):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "claw", "agent", "-m", f"ping {n}"],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        wall = time.perf_counter() - started
        assert done.returncode == 0 and done.stdout.strip() == f"ack ping {n}", done.stderr
        if n:  # the first run warms the page cache
            walls.append(wall)
    return walls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--agent-runs", type=int, default=15)
    parser.add_argument("--max-concurrent", type=int, default=16, help="agents.defaults.maxConcurrent")
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(instant=True, default=_ack) as model:
        home = Path(tmp) / "home"
        env = user_env()
        env.update(CLAW_HOME=str(home), OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="bench", CLAW_MODEL="m")
        _claw(env, "init")
        _claw(env, "config", "set", "agents.defaults.maxConcurrent", str(args.max_concurrent))
        local_walls = agent_walls(env, args.agent_runs)  # no gateway yet: each `claw agent` starts its own
        log = (Path(tmp) / "gateway.err").open("w")
        gateway = subprocess.Popen(
            [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        try:
            while not (home / "gateway.json").exists():
                assert gateway.poll() is None, "the gateway did not start"
                time.sleep(0.05)
            url = json.loads((home / "gateway.json").read_text())["url"]
            token = (home / "gateway.token").read_text().strip()
            walls = agent_walls(env, args.agent_runs)
            elapsed, latencies, problems = asyncio.run(load(url, token, args.clients, args.turns))
        finally:
            gateway.terminate()
            gateway.wait(30)
    total = args.clients * args.turns
    print(
        f"{args.clients} clients × {args.turns} turns = {total} turns in {elapsed:.2f} s: "
        f"{total / elapsed:.1f} turns/s (maxConcurrent {args.max_concurrent})"
    )
    print(spread("turn latency (agent req → final res)", latencies))
    print(spread("`claw agent -m` wall via the gateway", walls, unit="s"))
    print(spread("`claw agent -m` wall in-process (no gateway)", local_walls, unit="s"))
    print(f"lost/duplicated/out-of-order: {len(problems)} problem(s)")
    for problem in problems[:20]:
        print("  " + problem)
    walls.sort()
    targets = [
        Target("claw_agent_via_gateway_wall_p50", walls[len(walls) // 2], 0.3, "s"),
        Target("gateway_load_problems", float(len(problems)), 1, "count"),
    ]
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
