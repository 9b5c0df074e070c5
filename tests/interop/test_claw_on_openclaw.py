"""The other way round: claw's own clients on a real OpenClaw gateway (2026.9.6, `openclaw gateway run`), its
model a custom OpenAI-compatible provider pointed at the scripted model server, everything offline.

One OpenClaw gateway per module (it takes the better part of a minute to start). `claw agent --url` sends a
turn and prints the reply the scripted model gave; `/new`, which OpenClaw answers with one final result and
no accepted ack, prints OpenClaw's own answer instead of crashing; `/status` is OpenClaw's command (sent as
its TUI sends one), never a message to the model, in `claw agent` and in the console, whose Ctrl+B sidebar
lists OpenClaw's sessions and switches between them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.interop.openclaw_install import install_openclaw
from tests.support.fixtures import API_KEY, MODEL
from tests.support.model_server import ScriptedModelServer, text
from tests.support.processes import run_claw

pytestmark = pytest.mark.timeout(600)  # OpenClaw's gateway takes a minute or more to start on a busy machine

TOKEN = "reverse-interop-token-51c9"
REPLY = "Hello from the scripted model, through OpenClaw."
STARTUP_S = 180


@dataclass(frozen=True, slots=True)
class OpenClawGateway:
    url: str
    claw_env: dict[str, str]
    server: ScriptedModelServer


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def openclaw_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenClawGateway]:
    install = install_openclaw()
    root = tmp_path_factory.mktemp("openclaw-gateway")
    state = root / "home" / ".openclaw"
    state.mkdir(parents=True)
    port = _free_port()
    with ScriptedModelServer(models=(MODEL,), default=lambda _request: text(REPLY)) as server:
        config = {
            "gateway": {"mode": "local", "port": port, "bind": "loopback", "auth": {"mode": "token", "token": TOKEN}},
            "models": {
                "providers": {
                    "scripted": {
                        "baseUrl": server.base_url,
                        "apiKey": API_KEY,
                        "api": "openai-completions",
                        "models": [{"id": MODEL, "name": MODEL}],
                    }
                }
            },  # fmt: skip
            "agents": {"defaults": {"model": {"primary": f"scripted/{MODEL}"}}},
        }
        (state / "openclaw.json").write_text(json.dumps(config))
        env = {"PATH": f"{install.node.parent}:/usr/bin:/bin", "HOME": str(root / "home"),
               "OPENCLAW_STATE_DIR": str(state), "NO_COLOR": "1", "NO_PROXY": "127.0.0.1,localhost"}  # fmt: skip
        log = (root / "gateway.log").open("w")
        command = [str(install.node), str(install.openclaw), "gateway", "run", "--port", str(port)]
        proc = subprocess.Popen(command, env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)  # fmt: skip
        try:
            deadline = time.monotonic() + STARTUP_S
            while "[gateway] ready" not in (root / "gateway.log").read_text(errors="replace"):
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"openclaw gateway run did not start:\n{(root / 'gateway.log').read_text()[-3000:]}")
                time.sleep(0.5)
            claw_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CLAW_"))}
            claw_env |= {"CLAW_HOME": str(root / "claw-home"), "CLAW_GATEWAY_TOKEN": TOKEN,
                         "NO_PROXY": "127.0.0.1,localhost"}  # fmt: skip
            yield OpenClawGateway(f"ws://127.0.0.1:{port}", claw_env, server)
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            log.close()


def test_claw_agent_gets_the_models_reply_through_openclaw(openclaw_gateway: OpenClawGateway) -> None:
    done = run_claw(openclaw_gateway.claw_env, "agent", "-m", "hello there", "--url", openclaw_gateway.url,
                    timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert REPLY in done.stdout
    asked = [m for r in openclaw_gateway.server.chat_requests for m in r.messages if m.get("role") == "user"]
    assert any("hello there" in json.dumps(m) for m in asked)  # the turn reached the scripted model


def test_claw_agent_new_prints_openclaws_answer(openclaw_gateway: OpenClawGateway) -> None:
    done = run_claw(openclaw_gateway.claw_env, "agent", "-m", "/new", "--url", openclaw_gateway.url, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "New session started" in done.stdout and "Traceback" not in done.stderr


def test_claw_agent_status_is_openclaws_command(openclaw_gateway: OpenClawGateway) -> None:
    asked = len(openclaw_gateway.server.chat_requests)
    done = run_claw(openclaw_gateway.claw_env, "agent", "-m", "/status", "--url", openclaw_gateway.url, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "OpenClaw 2026.9.6" in done.stdout and "Session: agent:main:main" in done.stdout
    assert len(openclaw_gateway.server.chat_requests) == asked  # answered by OpenClaw, not sent to the model


async def test_claw_chat_status_and_sessions_sidebar(
    openclaw_gateway: OpenClawGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import OptionList

    from claw.client.remote import RemoteClient
    from claw.tui.app import make_app
    from claw.tui.widgets.conversation.notice import Notice
    from tests.tui.conftest import SIZE, type_and_send, user_texts, wait_for

    monkeypatch.setenv("CLAW_HOME", openclaw_gateway.claw_env["CLAW_HOME"])  # the device identity's home
    client = await RemoteClient.connect(openclaw_gateway.url, TOKEN, channel="tui")
    try:
        handle = await client.run("hello from elsewhere", session_key="agent:main:elsewhere")
        assert [e async for e in client.events(handle.run_id)][-1].data["phase"] == "end"
        asked = len(openclaw_gateway.server.chat_requests)
        app = make_app(client)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.chat.ready and app.chat.status.model, what="connected")
            await type_and_send(pilot, "/status")
            notices = lambda: [n.text for n in app.chat.conversation.query(Notice) if "OpenClaw 2026.9.6" in n.text]  # noqa: E731
            await wait_for(pilot, notices, timeout=180, what="OpenClaw's /status")
            assert len(openclaw_gateway.server.chat_requests) == asked  # a command, not a message to the model

            await pilot.press("ctrl+b")
            sidebar = app.chat.sidebar
            listed = lambda: [r["key"] for r in sidebar.rows] if sidebar.display else []  # noqa: E731
            await wait_for(pilot, lambda: "agent:main:elsewhere" in listed(), what="OpenClaw's sessions listed")
            options = sidebar.query_one(OptionList)
            ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
            options.focus()
            options.highlighted = ids.index("agent:main:elsewhere")
            await pilot.press("enter")
            await wait_for(pilot, lambda: user_texts(app) == ["hello from elsewhere"], what="the session switched to")
            assert app.chat.session_key == "agent:main:elsewhere"
    finally:
        await client.close()
