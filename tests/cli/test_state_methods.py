"""Listing commands and `automations add` without a gateway built (claw/cli/state_methods.py), and through a
running gateway when there is one.

The state path must answer what an in-process gateway answers (same rows, same errors) while importing
none of the gateway, the composition or openai; with a gateway running, the same commands ask it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from claw.cli import state_methods
from claw.cli.gateway_call import _call_local
from tests.server.test_gateway_cli import GATEWAY_TOKEN, start_gateway
from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text
from tests.support.processes import REPO, run_claw

LISTINGS = (
    ["sessions", "ls", "--json"],
    ["skills", "ls", "--all", "--json"],
    ["usage", "--by", "session", "--json"],
    ["automations", "ls", "--json"],
)
GATEWAY_MODULES = ("claw.gateway.gateway", "claw.agent.runner", "openai")
"""What building the gateway imports (`claw.compose` itself is cheap: `automations add` reads its platform table)."""


def imports_of(env: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """`claw ARGS` in a fresh interpreter under `-X importtime`: the result and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "claw", *args],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    done.stderr = "\n".join(line for line in done.stderr.splitlines() if not line.startswith("import time:"))
    return done, imported


def without_clock(value: Any) -> Any:
    """`value` without the fields that are the time of the answer (`ts`, a row's `snapshotAt`)."""
    if isinstance(value, dict):
        return {k: without_clock(v) for k, v in value.items() if k not in ("ts", "snapshotAt")}
    if isinstance(value, list):
        return [without_clock(v) for v in value]
    return value


@pytest.fixture
def used_home(claw_env: ClawEnv) -> ClawEnv:
    """A home with real turns in two sessions (one on another model), a fork, priced usage, skills and a job."""
    (claw_env.home / "workspace").mkdir()
    prices = '[models.prices."openai/test-model"]\ninput = 2.0\noutput = 8.0\n'
    (claw_env.home / "config.toml").write_text(prices, encoding="utf-8")
    claw_env.server.script(text("Priced.", usage=Usage(1000, 100)), text("Other.", usage=Usage(500, 50)))
    assert run_claw(claw_env.env, "agent", "-m", "hello").returncode == 0
    assert run_claw(claw_env.env, "agent", "-s", "zoo", "--model", "openai/other", "-m", "hi").returncode == 0
    assert run_claw(claw_env.env, "sessions", "fork", "main", "--as", "copy").returncode == 0
    added = run_claw(claw_env.env, "automations", "add", "0 9 * * *", "-m", "Give me my brief", "--tz", "UTC")
    assert added.returncode == 0, added.stderr
    return claw_env


CALLS = (
    ("sessions.list", {"agentId": "main"}),
    ("usage.summary", {"by": "session", "agentId": "main"}),
    ("usage.summary", {"by": "model", "since": "2026-01-31"}),
    ("skills.list", {"agentId": "main", "all": True}),
    ("automations.list", {}),
)


def test_the_state_answers_what_an_in_process_gateway_answers(used_home: ClawEnv) -> None:
    for method, params in CALLS:
        assert state_methods.answers(method, params)
        direct = state_methods.call(method, params)
        built = asyncio.run(_call_local(method, params))
        assert without_clock(direct) == without_clock(built), method
        assert direct, method  # something to compare: rows, groups, skills, the job


def test_bad_parameters_get_the_gateways_error(used_home: ClawEnv) -> None:
    for method, params in (("usage.summary", {"by": "nonsense"}), ("usage.summary", {"since": "yesterday-ish"})):
        with pytest.raises(Exception) as direct:
            state_methods.call(method, params)
        with pytest.raises(Exception) as built:
            asyncio.run(_call_local(method, params))
        assert (type(direct.value), str(direct.value)) == (type(built.value), str(built.value))
    assert not state_methods.answers("sessions.list", {"agentId": "main", "limit": 5})  # the gateway pages


def test_listings_build_no_gateway_and_print_what_they_printed(used_home: ClawEnv) -> None:
    env = used_home.env
    for args in LISTINGS:
        done, imported = imports_of(env, *args)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "claw.cli.state_methods" in imported, args
        assert not [m for m in GATEWAY_MODULES if m in imported], args
    rows = json.loads(imports_of(env, "sessions", "ls", "--json")[0].stdout)
    assert {row["key"]: row["cost"] for row in rows} == {
        "agent:main:main": 0.0028,
        "agent:main:zoo": 0.0,
        "agent:main:copy": None,
    }


def test_a_bad_cron_is_refused_without_a_gateway_and_nothing_stored(used_home: ClawEnv) -> None:
    done, imported = imports_of(used_home.env, "automations", "add", "61 9 * * *", "-m", "never")
    assert done.returncode == 2
    assert done.stderr == "claw: invalid cron expression '61 9 * * *': minute 61 is out of range 0-59"
    assert not [m for m in GATEWAY_MODULES if m in imported]
    jobs = json.loads(run_claw(used_home.env, "automations", "ls", "--json").stdout)
    assert [job["message"] for job in jobs] == ["Give me my brief"]
    again = run_claw(used_home.env, "automations", "add", "0 9 * * *", "-m", "x", "--name", jobs[0]["name"])
    assert again.returncode == 2 and "already exists" in again.stderr  # names taken are read from the store


@pytest.fixture
def running(used_home: ClawEnv) -> Iterator[dict[str, str]]:
    env = {**used_home.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    gateway = start_gateway(env, used_home.home)
    yield env
    gateway.stop()


def test_with_a_gateway_running_the_listings_ask_it(used_home: ClawEnv, running: dict[str, str]) -> None:
    for args in [*LISTINGS, ["automations", "add", "61 9 * * *", "-m", "never"]]:
        done, imported = imports_of(running, *args)
        assert done.returncode == (2 if "add" in args else 0), done.stderr[-2000:]
        assert "claw.client.remote" in imported, args
        assert "claw.cli.state_methods" not in imported and "claw.gateway.gateway" not in imported, args
    through = json.loads(imports_of(running, "sessions", "ls", "--json")[0].stdout)
    assert {row["key"] for row in through} == {"agent:main:main", "agent:main:zoo", "agent:main:copy"}
