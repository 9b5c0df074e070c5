"""OpenClaw's own CLI (2026.9.6), every command of it that talks to a gateway, against a real `claw gateway run`.

One gateway (and one scripted model server) per module; each command is one test, run as a user would: a
client config of its own in remote mode (`{gateway: {mode: "remote", remote: {url, token}}}`) in an isolated
HOME and OPENCLAW_STATE_DIR, and the assertion is on what the command prints. A command claw refuses, for a
feature it does not have, must say so in OpenClaw's own words (docs/openclaw.md lists them).

The commands are those of `openclaw --help` of each group that open a connection to the gateway (seen in
the gateway's log: one `connection … from 127.0.0.1` per command); commands that only read the client's
local files (`sessions list`, `agents list`, `models status`, `config get`, `memory …`) are not here.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from claw.client.remote import RemoteClient
from tests.channels.fakes import BOT_TOKEN, FakeTelegram
from tests.interop.openclaw_install import OpenClawInstall, install_openclaw
from tests.server.test_gateway_cli import GatewayProc, start_gateway
from tests.support.fixtures import API_KEY, MODEL
from tests.support.model_server import ScriptedModelServer, text
from tests.support.processes import run_claw, wait_until

pytestmark = pytest.mark.timeout(300)  # a command takes seconds of Node start-up; the module's gateway, more

TOKEN = "interop-cli-token-7c1d"
REPLY = "Hello from claw, OpenClaw CLI."


@dataclass(frozen=True, slots=True)
class Rig:
    """One claw gateway and an OpenClaw CLI configured for it."""

    install: OpenClawInstall
    gateway: GatewayProc
    telegram: FakeTelegram
    url: str
    claw_env: dict[str, str]
    client_env: dict[str, str]
    cwd: Path

    def openclaw(self, *args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
        command = [str(self.install.node), str(self.install.openclaw), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=self.client_env,
                              cwd=self.cwd, stdin=subprocess.DEVNULL)  # fmt: skip

    def call(self, method: str, **params: Any) -> Any:
        """A claw client's RPC on the gateway (to set up what a command then reads)."""

        async def go() -> Any:
            client = await RemoteClient.connect(self.url, TOKEN)
            try:
                return await client.call(method, **params)
            finally:
                await client.close()

        return asyncio.run(go())


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    install = install_openclaw()
    root = tmp_path_factory.mktemp("openclaw-cli")
    home = root / "claw-home"
    home.mkdir()
    with ScriptedModelServer(models=(MODEL,), default=lambda _request: text(REPLY)) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CLAW_", "OPENCLAW_"))}
        env |= {"CLAW_HOME": str(home), "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": API_KEY,
                "CLAW_MODEL": MODEL, "CLAW_GATEWAY_TOKEN": TOKEN, "NO_PROXY": "127.0.0.1,localhost"}  # fmt: skip
        assert run_claw(env, "init").returncode == 0
        # A Telegram account on a fake Bot API (loopback): what `openclaw message send` sends through.
        telegram = FakeTelegram().start()
        with (home / "config.toml").open("a") as config_file:
            config_file.write(f'\n[channels.telegram]\nbotToken = "{BOT_TOKEN}"\napiBaseUrl = "{telegram.url}"\n'
                              "pollTimeoutSeconds = 1\n")  # fmt: skip
        gateway = start_gateway(env, home)
        try:
            url = f"ws://127.0.0.1:{gateway.info['port']}"
            client_home = root / "openclaw-home"
            state = client_home / ".openclaw"
            state.mkdir(parents=True)
            config = {"gateway": {"mode": "remote", "remote": {"url": url, "token": TOKEN}}}
            (state / "openclaw.json").write_text(json.dumps(config))
            client_env = {"PATH": f"{install.node.parent}:/usr/bin:/bin", "HOME": str(client_home),
                          "OPENCLAW_STATE_DIR": str(state), "NO_COLOR": "1", "TERM": "dumb",
                          "NO_PROXY": "127.0.0.1,localhost"}  # fmt: skip
            yield Rig(install, gateway, telegram, url, env, client_env, root)
        finally:
            telegram.stop()
            if gateway.proc.poll() is None:
                gateway.proc.kill()
                gateway.proc.wait(10)


def output(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def works(rig: Rig, *args: str) -> str:
    """Run the command; it must succeed. Returns what it printed."""
    done = rig.openclaw(*args)
    printed = output(done)
    assert done.returncode == 0, f"openclaw {' '.join(args)} exited {done.returncode}:\n{printed}"
    assert "unknown method" not in printed, printed
    return printed


def session(rig: Rig, label: str) -> str:
    """A session with one finished turn in it, its key."""
    key = f"agent:main:{label}"
    handle = rig.call("agent", message=f"hello {label}", sessionKey=key)
    rig.call("agent.wait", runId=handle["runId"], timeoutMs=30_000)
    return key


def job(rig: Rig, name: str) -> str:
    """A claw automation (an OpenClaw cron job), its id."""
    return rig.call("automations.add", name=name, cron="0 3 * * *", message=f"run {name}")["id"]


# --- reads every OpenClaw client makes ------------------------------------------------------------


def test_health(rig: Rig) -> None:
    assert "Agents: main (default)" in works(rig, "health")


def test_status(rig: Rig) -> None:
    printed = works(rig, "status")
    assert f"remote · {rig.url}" in printed and "reachable" in printed


def test_status_all(rig: Rig) -> None:
    printed = works(rig, "status", "--all")
    assert "Diagnosis (read-only)" in printed and "diagnostics failed" not in printed


def test_doctor(rig: Rig) -> None:
    printed = works(rig, "doctor", "--non-interactive")
    assert "Doctor complete." in printed and "diagnostics failed" not in printed


def test_gateway_health(rig: Rig) -> None:
    assert "OK (" in works(rig, "gateway", "health")


def test_gateway_probe(rig: Rig) -> None:
    assert "Reachable: yes" in works(rig, "gateway", "probe", "--timeout", "30000")  # 3 s is tight on a busy CI box


def test_gateway_call_health(rig: Rig) -> None:
    assert '"defaultAgentId": "main"' in works(rig, "gateway", "call", "health")


def test_gateway_call_status(rig: Rig) -> None:
    assert '"runtimeVersion"' in works(rig, "gateway", "call", "status")


def test_system_presence(rig: Rig) -> None:
    assert '"mode": "gateway"' in works(rig, "system", "presence")


def test_system_heartbeat_last(rig: Rig) -> None:
    assert works(rig, "system", "heartbeat", "last").strip().endswith("null")


def test_channels_status(rig: Rig) -> None:
    assert "Gateway reachable." in works(rig, "channels", "status")


def test_channels_list(rig: Rig) -> None:
    assert "Chat channels:" in works(rig, "channels", "list")


# --- turns and sessions ---------------------------------------------------------------------------


def test_agent(rig: Rig) -> None:
    assert REPLY in works(rig, "agent", "-m", "hello", "--session-id", "agent:main:cli-turn")


def test_sessions_compact(rig: Rig) -> None:
    key = session(rig, "to-compact")
    assert key in works(rig, "sessions", "compact", key)


def test_sessions_delete(rig: Rig) -> None:
    key = session(rig, "to-delete")
    works(rig, "sessions", "delete", key, "--yes")
    assert rig.call("sessions.describe", key=key)["session"] is None


def test_sessions_archive_is_refused_by_name(rig: Rig) -> None:
    key = session(rig, "to-archive")
    done = rig.openclaw("sessions", "archive", key)
    assert done.returncode != 0 and "claw has no per-session archived setting" in output(done)
    assert key in [row["key"] for row in rig.call("sessions.list")["sessions"]]  # nothing changed


# --- cron: OpenClaw's jobs are claw's automations -------------------------------------------------


def test_cron_add(rig: Rig) -> None:
    printed = works(rig, "cron", "add", "--name", "cli-nightly", "--cron", "0 4 * * *", "--tz", "UTC",
                    "--session", "isolated", "--message", "summarise the day", "--no-deliver")  # fmt: skip
    assert "cli-nightly" in printed
    added = [j for j in rig.call("automations.list") if j["name"] == "cli-nightly"]
    assert added and added[0]["schedule"]["expr"] == "0 4 * * *" and added[0]["message"] == "summarise the day"


def test_cron_list(rig: Rig) -> None:
    job(rig, "list-me")
    assert "list-me" in works(rig, "cron", "list")


def test_automations_list(rig: Rig) -> None:
    job(rig, "list-me-too")
    assert "list-me-too" in works(rig, "automations", "list")


def test_cron_status(rig: Rig) -> None:
    job(rig, "status-job")
    printed = works(rig, "cron", "status")
    assert '"enabled": true' in printed and '"nextWakeAtMs"' in printed


def test_cron_get(rig: Rig) -> None:
    job_id = job(rig, "get-me")
    assert "get-me" in works(rig, "cron", "get", job_id)


def test_cron_edit(rig: Rig) -> None:
    job_id = job(rig, "edit-me")
    works(rig, "cron", "edit", job_id, "--name", "edited")
    assert rig.call("automations.get", id=job_id)["name"] == "edited"


def test_cron_disable_and_enable(rig: Rig) -> None:
    job_id = job(rig, "toggle-me")
    works(rig, "cron", "disable", job_id)
    assert rig.call("automations.get", id=job_id)["enabled"] is False
    works(rig, "cron", "enable", job_id)
    assert rig.call("automations.get", id=job_id)["enabled"] is True


def test_cron_run_and_runs(rig: Rig) -> None:
    job_id = job(rig, "run-me")
    works(rig, "cron", "run", job_id)
    wait_until(lambda: [r for r in rig.call("automations.runs", id=job_id) if r["finishedAt"]], what="the run")
    printed = works(rig, "cron", "runs", "--id", job_id)
    assert job_id in printed and '"status": "ok"' in printed


def test_cron_rm(rig: Rig) -> None:
    job_id = job(rig, "remove-me")
    works(rig, "cron", "rm", job_id)
    assert job_id not in [j["id"] for j in rig.call("automations.list")]


# --- the operator's reads: diagnostics, logs, skills, hooks, models -------------------------------


def test_gateway_stability(rig: Rig) -> None:
    printed = works(rig, "gateway", "stability")
    assert "Gateway Stability" in printed and "Events: 0/0" in printed


def test_gateway_usage_cost(rig: Rig) -> None:
    session(rig, "costs")  # one turn's tokens, at least
    printed = works(rig, "gateway", "usage-cost")
    assert "Usage cost (30 days)" in printed and " · 0 tokens" not in printed


def test_logs(rig: Rig) -> None:
    assert "from 127.0.0.1: cli 2026.9.6 (cli)" in works(rig, "logs", "--limit", "20", "--plain")  # its own


def test_models_list(rig: Rig) -> None:
    assert MODEL in works(rig, "models", "list")


def test_skills_list(rig: Rig) -> None:
    assert "Skills" in works(rig, "skills", "list")


def test_skills_check(rig: Rig) -> None:
    assert "Skills" in works(rig, "skills", "check")


def test_skills_info(rig: Rig) -> None:
    assert "not found" in output(rig.openclaw("skills", "info", "no-such-skill")).lower()


def test_hooks_list(rig: Rig) -> None:
    assert "Hooks" in works(rig, "hooks", "list")


def test_hooks_check(rig: Rig) -> None:
    assert "Hooks" in works(rig, "hooks", "check")


def test_hooks_info(rig: Rig) -> None:
    assert "not found" in output(rig.openclaw("hooks", "info", "no-such-hook")).lower()


# --- approvals --------------------------------------------------------------------------------------


def test_approvals_pending(rig: Rig) -> None:
    assert "No pending approvals" in works(rig, "approvals", "pending")


def test_exec_approvals_pending(rig: Rig) -> None:
    assert "No pending approvals" in works(rig, "exec-approvals", "pending")


def test_approvals_resolve(rig: Rig) -> None:
    done = rig.openclaw("approvals", "resolve", "abc123", "allow-once")
    assert done.returncode != 0 and "approval not found: abc123" in output(done)


def test_approvals_get_gateway(rig: Rig) -> None:
    done = rig.openclaw("approvals", "get", "--gateway")
    assert done.returncode != 0 and "unknown method: exec.approvals.get" in output(done)


# --- nodes: claw serves no nodes, and says so in OpenClaw's shapes ----------------------------------


def test_nodes_list(rig: Rig) -> None:
    assert "Paired: 0" in works(rig, "nodes", "list")


def test_nodes_pending(rig: Rig) -> None:
    assert "No pending pairing requests" in works(rig, "nodes", "pending")


def test_nodes_status(rig: Rig) -> None:
    assert "Known: 0" in works(rig, "nodes", "status")


def test_nodes_describe(rig: Rig) -> None:
    done = rig.openclaw("nodes", "describe", "--node", "phone")
    assert done.returncode != 0 and "unknown node" in output(done).lower()


# --- devices ----------------------------------------------------------------------------------------


def test_devices_list(rig: Rig) -> None:
    # OpenClaw's CLI never pairs itself here: with a gateway token on a loopback URL it signs in without a
    # device identity (its shouldOmitDeviceIdentityForGatewayCall), on OpenClaw's gateway as on claw's. The
    # devices listed are those that connected with one: claw's own client, paired on first sight by this call.
    paired = rig.call("device.pair.list")["paired"]
    assert paired, "claw's client connected with its device identity over loopback: paired on first sight"
    listed = works(rig, "devices", "list")
    assert f"Paired ({len(paired)})" in listed and "Pending" not in listed
    for device in paired:  # the CLI's "Full device IDs" lines: id, then label (displayName, else clientId)
        assert f"  {device['deviceId']}  {device.get('displayName') or device['clientId']}" in listed
    works(rig, "devices", "clear", "--yes")
    assert works(rig, "devices", "list").strip() == "No device pairing entries."


def test_devices_approve_unknown(rig: Rig) -> None:
    assert "No pending device request matches abc123" in output(rig.openclaw("devices", "approve", "abc123"))


def test_devices_reject_unknown(rig: Rig) -> None:
    assert "unknown requestId" in output(rig.openclaw("devices", "reject", "abc123"))


def test_devices_remove_unknown(rig: Rig) -> None:
    assert "unknown deviceId" in output(rig.openclaw("devices", "remove", "abc123"))


def test_devices_clear(rig: Rig) -> None:
    works(rig, "devices", "clear", "--yes")


def test_devices_rename(rig: Rig) -> None:
    device = rig.call("device.pair.list")["paired"][0]["deviceId"]
    works(rig, "devices", "rename", "--device", device, "--name", "build box")
    assert rig.call("device.pair.list")["paired"][0]["displayName"] == "build box"


def test_devices_rotate(rig: Rig) -> None:
    done = rig.openclaw("devices", "rotate", "--device", "abc123", "--role", "operator")
    assert done.returncode != 0 and "unknown method: device.token.rotate" in output(done)


def test_devices_revoke(rig: Rig) -> None:
    done = rig.openclaw("devices", "revoke", "--device", "abc123", "--role", "operator")
    assert done.returncode != 0 and "unknown method: device.token.revoke" in output(done)


# --- system, messages, secrets ----------------------------------------------------------------------


def test_system_event(rig: Rig) -> None:
    works(rig, "system", "event", "--text", "the backup finished")

    def answered() -> list[dict[str, Any]]:  # the event, then the turn it ran in the main session
        messages = rig.call("chat.history", sessionKey="agent:main:main")["messages"]
        at = [i for i, m in enumerate(messages) if "the backup finished" in json.dumps(m)]
        return [m for m in messages[at[-1] + 1 :] if m["role"] == "assistant"] if at else []

    assert REPLY in json.dumps(wait_until(answered, what="the turn on the system event"))


def test_system_heartbeat_enable(rig: Rig) -> None:
    done = rig.openclaw("system", "heartbeat", "enable")
    assert done.returncode != 0 and "unknown method: set-heartbeats" in output(done)


def test_message_send(rig: Rig) -> None:
    works(rig, "message", "send", "--channel", "telegram", "--target", "123", "-m", "hi from openclaw")
    sent = rig.telegram.wait_calls("sendMessage", 1)  # through claw's outbox, to the (fake) Bot API
    assert [(c.params["chat_id"], c.params["text"]) for c in sent] == [(123, "hi from openclaw")]


def test_secrets_reload(rig: Rig) -> None:
    works(rig, "secrets", "reload")
