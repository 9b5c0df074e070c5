"""`claw agent -m /context` and a compaction as the terminal shows them (real subprocesses)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.compaction.conftest import Model, config, filler_turns, seed, write_config
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw

REPO_ROOT = Path(__file__).resolve().parents[2]


def claw(env: ClawEnv, *args: str) -> subprocess.CompletedProcess[str]:
    done = run_claw(env.env, *args)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return done


def test_context_command_and_compaction_in_the_terminal(claw_env: ClawEnv) -> None:
    (claw_env.home / "workspace").mkdir()
    write_config(claw_env, config(8000, reserve=1000, keep=600))
    seed(claw_env, filler_turns(30))
    claw_env.server.default = Model(window=8000, replies=[])

    table = claw(claw_env, "agent", "-m", "/context").stdout
    assert "Window 8,000 tokens (from config)" in table and "the next turn compacts it" in table

    turn = claw(claw_env, "agent", "-m", "go on")
    assert "(context compacted: ~" in turn.stderr and turn.stdout.strip() == "ok"

    report = json.loads(claw(claw_env, "agent", "-m", "/context json").stdout)
    assert report["compactions"] == 1 and report["droppedUnits"] == 0
    assert sum(row["tokens"] for row in report["sections"]) == report["total"] <= report["window"]
    table = claw(claw_env, "agent", "-m", "/context").stdout
    assert "Compacted 1 time(s)" in table and "compacts it" not in table
