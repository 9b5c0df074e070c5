"""The real `claw agent -m` process stays until the subagents its turn spawned have reported, in-process
and through a running gateway; `claw sessions ls --tree` shows the children under their parent."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.server.test_gateway_cli import GATEWAY_TOKEN, REPO, GatewayProc, start_gateway
from tests.subagents.conftest import Roles, turn_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text, tool_call
from tests.support.processes import run_claw

Done = subprocess.CompletedProcess[str]


def claw(env: dict[str, str], *args: str, timeout: float = 90, flags: tuple[str, ...] = ()) -> Done:
    if not flags:
        return run_claw(env, *args, timeout=timeout)
    return subprocess.run(
        [sys.executable, *flags, "-m", "claw", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def delegating_model(env: ClawEnv) -> Roles:
    roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Find the answer.", "label": "finder"}), text("On it.")],
        child=[slow("The answer is 42.", delay_per_chunk=0.4)],
        announce=[text("Report: the answer is 42.")],
    )
    env.server.default = roles
    return roles


def check_waited(done: Done, roles: Roles) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    events = [json.loads(line) for line in done.stdout.splitlines()]
    ends = [e["data"]["text"] for e in events if e["stream"] == "lifecycle" and e["data"]["phase"] == "end"]
    assert ends == ["On it.", "Report: the answer is 42."]  # the turn, then the announcement turn it waited for
    assert len({e["runId"] for e in events}) == 2
    assert "The answer is 42." in turn_message(roles.seen["announce"][0])


def test_one_shot_waits_for_its_subagents_in_process(claw_env: ClawEnv) -> None:
    roles = delegating_model(claw_env)
    done = claw(claw_env.env, "agent", "-m", "what is the answer?", "--json")
    check_waited(done, roles)

    human = claw_env.env
    roles = delegating_model(claw_env)
    shown = claw(human, "agent", "-m", "and again?")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == ["On it.", "Report: the answer is 42."]
    assert "(waiting for 1 subagent…)" in shown.stderr
    assert '(subagent "finder" ok; reporting)' in shown.stderr
    assert len(roles.seen["announce"]) == 1

    tree = claw(claw_env.env, "sessions", "ls", "--tree", "--json")
    assert tree.returncode == 0, tree.stderr
    [root] = json.loads(tree.stdout)
    assert root["key"] == "agent:main:main"
    assert [c["subagentStatus"] for c in root["children"]] == ["ok", "ok"]
    assert all(c["spawnedBy"] == "agent:main:main" for c in root["children"])
    table = claw({**claw_env.env, "COLUMNS": "160"}, "sessions", "ls", "--tree")
    lines = [line.strip() for line in table.stdout.splitlines()]
    assert lines[1].startswith("agent:main:main")
    for line, child in zip(lines[2:], root["children"], strict=True):
        assert line.startswith("└─ " + child["key"].removeprefix("agent:main:") + " ")
        assert " ok " in line


@pytest.fixture
def gateway(claw_env: ClawEnv) -> Iterator[GatewayProc]:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    assert claw(env, "init").returncode == 0
    running = start_gateway(env, claw_env.home)
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait(10)


def test_one_shot_waits_for_its_subagents_through_a_running_gateway(claw_env: ClawEnv, gateway: GatewayProc) -> None:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    roles = delegating_model(claw_env)
    done = claw(env, "agent", "-m", "what is the answer?", "--json", flags=("-X", "importtime"))
    check_waited(done, roles)
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "claw.client.remote" in imported and "claw.gateway.gateway" not in imported  # not in-process
    assert gateway.proc.poll() is None
