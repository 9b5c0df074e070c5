"""What one WebSocket connection's handshake costs a running gateway, in CPU (issue 41).

Run from the repo root:  python -m bench.gateway_handshake  [--connections 200] [--sessions 50]

A real `claw gateway run --port 0` on a temporary CLAW_HOME (the scripted model server, tests/support, behind
it), with `--sessions` sessions made first by real turns, so the hello's snapshot has something in it. Then
`--connections` clients, one after another, each: open the socket, read `connect.challenge`, send `connect`,
read `hello-ok`, close. Measured: the gateway process's CPU (user + system, /proc/PID/stat) over the whole
series, less what it spends idle over as long a wall time (its tick and housekeeping, measured just before),
divided by the number of connections. Then the same series again while `--open` other clients stay connected
(each presence change goes to all of them), less what connecting and closing those costs. For scale, a series of
`health` requests on one open connection: what a request costs, without a handshake. Last, `--turns` turns on
one client in one session, then each on a new client in a new session (issue 41's "40 new clients × 1 turn vs
1 client × 40 turns").

Targets (issue 41): a connection's handshake costs the gateway at most 10 ms of CPU; turns on new clients come
at least half as fast as on one client.
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
from pathlib import Path
from typing import Any

from bench.process import user_env
from bench.report import Target, finish, machine_line
from tests.support.model_server import ScriptedModelServer

REPO = Path(__file__).resolve().parents[1]
CONNECT = {
    "minProtocol": 4,
    "maxProtocol": 4,
    "client": {"id": "test", "version": "1", "platform": "linux", "mode": "test"},
    "role": "operator",
    "scopes": ["operator.admin"],
}


def process_cpu(pid: int) -> float:
    """User + system seconds the process `pid` has spent (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def handshake(url: str, token: str) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    async with connect(url, max_size=None, compression=None) as ws:
        assert json.loads(await ws.recv())["event"] == "connect.challenge"
        await ws.send(json.dumps({"type": "req", "id": "c", "method": "connect",
                                  "params": {**CONNECT, "auth": {"token": token}}}))  # fmt: skip
        hello = json.loads(await ws.recv())
        assert hello["ok"], hello
        return hello["payload"]


async def _listener(url: str, token: str, ready: asyncio.Event, done: asyncio.Event) -> None:
    """An open, connected client that reads (and drops) every event the gateway sends it until `done`."""
    from websockets.asyncio.client import connect

    async with connect(url, max_size=None, compression=None) as ws:
        await ws.recv()
        await ws.send(json.dumps({"type": "req", "id": "c", "method": "connect",
                                  "params": {**CONNECT, "auth": {"token": token}}}))  # fmt: skip
        assert json.loads(await ws.recv())["ok"]
        ready.set()
        reading = asyncio.ensure_future(_drain(ws))
        await done.wait()
        reading.cancel()


async def _drain(ws: Any) -> None:
    async for _frame in ws:
        pass


async def handshakes(url: str, token: str, count: int, open_clients: int = 0) -> dict[str, Any]:
    """`count` handshakes one after another, while `open_clients` other clients stay connected."""
    done = asyncio.Event()
    readies = [asyncio.Event() for _ in range(open_clients)]
    listeners = [asyncio.ensure_future(_listener(url, token, ready, done)) for ready in readies]
    for ready in readies:
        await ready.wait()
    hello: dict[str, Any] = {}
    for _ in range(count):
        hello = await handshake(url, token)
    done.set()
    await asyncio.gather(*listeners)
    return hello


async def requests(url: str, token: str, count: int) -> None:
    from websockets.asyncio.client import connect

    async with connect(url, max_size=None, compression=None) as ws:
        await ws.recv()
        await ws.send(json.dumps({"type": "req", "id": "c", "method": "connect",
                                  "params": {**CONNECT, "auth": {"token": token}}}))  # fmt: skip
        assert json.loads(await ws.recv())["ok"]
        for n in range(count):
            await ws.send(json.dumps({"type": "req", "id": str(n), "method": "health", "params": {}}))
            while (frame := json.loads(await ws.recv()))["type"] != "res":
                pass
            assert frame["ok"], frame


async def _turn(ws: Any, session: str, n: int) -> None:
    """One `agent` turn in `session`: its accepted `res`, then its final one."""
    params = {"message": f"turn {n}", "sessionKey": session, "idempotencyKey": f"{session}-{n}"}
    await ws.send(json.dumps({"type": "req", "id": f"t{n}", "method": "agent", "params": params}))
    answers = 0
    while answers < 2:
        frame = json.loads(await ws.recv())
        if frame["type"] == "res":
            assert frame["id"] == f"t{n}" and frame["ok"], frame
            answers += 1


async def turns(url: str, token: str, count: int, *, new_clients: bool, tag: str, new_sessions: bool = False) -> float:
    """Seconds for `count` turns: on one connection in one session, or each on a new connection in a new session
    (issue 41's "1 client × 40 turns" and "40 new clients × 1 turn"); `new_sessions`: one connection, each turn
    in a new session (what the sessions cost, without the connections)."""
    from websockets.asyncio.client import connect

    async def connected() -> Any:
        ws = await connect(url, max_size=None, compression=None)
        await ws.recv()
        await ws.send(json.dumps({"type": "req", "id": "c", "method": "connect",
                                  "params": {**CONNECT, "auth": {"token": token}}}))  # fmt: skip
        assert json.loads(await ws.recv())["ok"]
        return ws

    started = time.perf_counter()
    ws = None if new_clients else await connected()
    for n in range(count):
        if new_clients:
            ws = await connected()
        await _turn(ws, f"agent:main:{tag}-{n if new_clients or new_sessions else 0}", n)
        if new_clients:
            await ws.close()
    if not new_clients:
        await ws.close()
    return time.perf_counter() - started


def cpu_over(pid: int, run: Any) -> tuple[float, float]:
    """(CPU seconds of `pid`, wall seconds) while `run()` runs."""
    cpu, wall = process_cpu(pid), time.perf_counter()
    run()
    return process_cpu(pid) - cpu, time.perf_counter() - wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=200, help="handshakes, one after another (default 200)")
    parser.add_argument("--sessions", type=int, default=50, help="sessions made before (default 50)")
    parser.add_argument("--turns", type=int, default=40, help="turns for the new-client comparison (default 40)")
    parser.add_argument("--open", type=int, default=100, help="other clients connected meanwhile (default 100)")
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(instant=True) as model:
        home = Path(tmp) / "home"
        env = user_env()
        env.update(CLAW_HOME=str(home), OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="bench", CLAW_MODEL="m")
        subprocess.run([sys.executable, "-m", "claw", "init"], env=env, cwd=REPO, check=True, capture_output=True)
        log = (Path(tmp) / "gateway.err").open("w")
        gateway = subprocess.Popen([sys.executable, "-m", "claw", "gateway", "run", "--port", "0"], env=env,
                                   cwd=REPO, stdout=subprocess.DEVNULL, stderr=log)  # fmt: skip
        try:
            while not (home / "gateway.json").exists():
                assert gateway.poll() is None, "the gateway did not start"
                time.sleep(0.05)
            url = json.loads((home / "gateway.json").read_text())["url"]
            token = (home / "gateway.token").read_text().strip()
            for n in range(args.sessions):
                subprocess.run([sys.executable, "-m", "claw", "agent", "-s", f"s{n}", "-m", "hi"], env=env,
                               cwd=REPO, check=True, capture_output=True, timeout=120)  # fmt: skip
            asyncio.run(handshakes(url, token, 5))  # warm-up: lazy imports, first-use caches
            asyncio.run(requests(url, token, 5))
            hello: dict[str, Any] = {}

            def series() -> None:
                nonlocal hello
                hello = asyncio.run(handshakes(url, token, args.connections))

            def crowded() -> None:
                asyncio.run(handshakes(url, token, args.connections, args.open))

            spent, wall = cpu_over(gateway.pid, series)
            # With others connected, the open/close itself is no dearer, but every presence change it causes
            # goes to each of them: the difference is what a handshake costs in broadcasts.
            open_cost = cpu_over(gateway.pid, lambda: asyncio.run(handshakes(url, token, 0, args.open)))[0]
            crowd_spent, crowd_wall = cpu_over(gateway.pid, crowded)
            idle, idle_wall = cpu_over(gateway.pid, lambda: time.sleep(min(wall, 5.0)))
            idle_rate = idle / idle_wall
            per_handshake = max(spent - idle_rate * wall, 0.0) / args.connections
            per_crowded = max(crowd_spent - open_cost - idle_rate * crowd_wall, 0.0) / args.connections
            req_spent, req_wall = cpu_over(gateway.pid, lambda: asyncio.run(requests(url, token, args.connections)))
            per_request = max(req_spent - idle_rate * req_wall, 0.0) / args.connections
            one_client = asyncio.run(turns(url, token, args.turns, new_clients=False, tag="one"))
            new_clients = asyncio.run(turns(url, token, args.turns, new_clients=True, tag="new"))
            new_sessions = asyncio.run(turns(url, token, args.turns, new_clients=False, tag="ses", new_sessions=True))
        finally:
            gateway.terminate()
            gateway.wait(30)
    snapshot = json.dumps(hello.get("snapshot", {}))
    print(f"{args.connections} handshakes in {wall:.2f} s: gateway CPU {spent:.3f} s "
          f"(idle {idle_rate * 1000:.1f} ms/s), {per_handshake * 1000:.2f} ms CPU a handshake")  # fmt: skip
    print(
        f"the same with {args.open} other clients connected: {per_crowded * 1000:.2f} ms CPU a handshake "
        f"(less the {open_cost:.3f} s of connecting and closing those {args.open})"
    )
    print(f"{args.turns} turns: on one client in one session {args.turns / one_client:.1f} turns/s, "
          f"each on a new client in a new session {args.turns / new_clients:.1f} turns/s; "
          f"on one client, each in a new session {args.turns / new_sessions:.1f} turns/s")  # fmt: skip
    print(f"for scale: {args.connections} `health` requests on one connection: {per_request * 1000:.2f} ms CPU each")
    print(f"hello-ok: {len(json.dumps(hello))} bytes, snapshot {len(snapshot)} bytes, {args.sessions} sessions stored")
    return finish(
        [
            Target("gateway CPU per WebSocket handshake", per_handshake * 1000, 10.0, "ms"),
            Target(
                f"gateway CPU per WebSocket handshake, {args.open} others connected", per_crowded * 1000, 10.0, "ms"
            ),
            Target("turn rate on one client / on a new client per turn", new_clients / one_client, 2.0, "×"),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
