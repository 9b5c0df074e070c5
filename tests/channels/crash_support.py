"""What the kill -9 tests share: real `claw gateway run` processes on one state, started with a config and an
optional crash point (CLAW_FAULT), stopped at the end, and a wait until their channels are at rest."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.channels.conftest import FAST_OUTBOX
from tests.channels.processes import GatewayProc, claw, wait_until
from tests.support.fixtures import ClawEnv


@pytest.fixture
def procs(claw_env: ClawEnv) -> Iterator[list[GatewayProc]]:
    started: list[GatewayProc] = []
    yield started
    for proc in started:
        proc.stop()


def start(claw_env: ClawEnv, procs: list[GatewayProc], config: str, fault: str | None = None) -> GatewayProc:
    (claw_env.home / "config.toml").write_text(FAST_OUTBOX + config, encoding="utf-8")
    proc = GatewayProc(claw_env.env, fault=fault)
    procs.append(proc)
    return proc


def settled(claw_env: ClawEnv) -> None:
    """Wait until the running gateway's channels are at rest (`claw channels status` reports `idle`: every stored
    message processed, every reply sent or given up). Only then can a test count replies as exactly one."""

    def idle() -> bool:
        status = claw(claw_env.env, "channels", "status", "--json")
        assert status.returncode == 0, status.stderr
        return json.loads(status.stdout)["idle"]

    wait_until(idle, what="the channels to be idle")
