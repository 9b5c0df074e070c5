"""`claw sessions ls` shows each session's cost from the ledger, priced now (a local server's calls free,
"—" when nothing is known: a fork has no calls of its own), in a table within 80 columns; `--json` carries it."""

from __future__ import annotations

import json

from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text
from tests.support.processes import run_claw
from tests.usage.conftest import write_config


def test_sessions_ls_has_a_cost_column_priced_now(claw_env: ClawEnv) -> None:
    (claw_env.home / "workspace").mkdir()
    write_config(claw_env, '[models.prices."openai/test-model"]\ninput = 2.0\noutput = 8.0\n')
    claw_env.server.script(text("Priced.", usage=Usage(1000, 100)), text("Unpriced.", usage=Usage(500, 50)))
    assert run_claw(claw_env.env, "agent", "-m", "hello").returncode == 0
    zoo = run_claw(claw_env.env, "agent", "-s", "zoo", "--model", "openai/not-in-config", "-m", "hi")
    assert zoo.returncode == 0, zoo.stderr  # no configured price: the loopback server is a local one, free
    assert run_claw(claw_env.env, "sessions", "fork", "main", "--as", "copy").returncode == 0

    listed = run_claw(claw_env.env, "sessions", "ls", "--json")
    assert listed.returncode == 0, listed.stderr
    costs = {row["key"]: row["cost"] for row in json.loads(listed.stdout)}
    assert costs == {"agent:main:main": 0.0028, "agent:main:zoo": 0.0, "agent:main:copy": None}

    table = run_claw({**claw_env.env, "COLUMNS": "80"}, "sessions", "ls")
    assert table.returncode == 0, table.stderr
    header, *lines = table.stdout.splitlines()
    assert header.split() == ["SESSION", "KEY", "ID", "MESSAGES", "UPDATED", "COST", "LAST", "MESSAGE"]
    assert all(len(line) <= 80 for line in [header, *lines])
    shown = {line.split()[0]: line for line in lines}
    assert "$0.0028" in shown["agent:main:main"] and "$0.0000" in shown["agent:main:zoo"]
    assert " — " in shown["agent:main:copy"]

    write_config(claw_env, '[models.prices."openai/test-model"]\ninput = 4.0\noutput = 8.0\n')  # re-priced
    again = json.loads(run_claw(claw_env.env, "sessions", "ls", "--json").stdout)
    assert {row["key"]: row["cost"] for row in again}["agent:main:main"] == 0.0048
