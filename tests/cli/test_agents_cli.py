"""`claw agents …` as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.support.processes import run_claw


def claw(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAW_HOME": str(home)}
    return run_claw(env, *args)


def test_add_ls_route_rm(tmp_path: Path) -> None:
    assert claw(tmp_path, "init").returncode == 0
    added = claw(tmp_path, "agents", "add", "work")
    assert added.returncode == 0, added.stderr
    assert (tmp_path / "workspace-work" / "SOUL.md").is_file()
    assert claw(tmp_path, "agents", "add", "work").returncode == 2

    rows = json.loads(claw(tmp_path, "agents", "ls", "--json").stdout)
    assert [r["agentId"] for r in rows] == ["main", "work"]

    with (tmp_path / "config.toml").open("a") as handle:
        handle.write('\n[[bindings]]\nagentId = "work"\nchannel = "telegram"\n')
    routed = json.loads(claw(tmp_path, "agents", "route", "--channel", "telegram", "--peer", "9", "--json").stdout)
    assert routed["agentId"] == "work" and routed["winner"] == 0
    assert json.loads(claw(tmp_path, "agents", "route", "--channel", "slack", "--json").stdout)["agentId"] == "main"
    shown = claw(tmp_path, "agents", "bindings")
    assert "work" in shown.stdout and "channel=telegram" in shown.stdout

    refused = claw(tmp_path, "agents", "rm", "work")
    assert refused.returncode == 2 and "still has 1 binding" in refused.stderr
    text = (tmp_path / "config.toml").read_text()
    (tmp_path / "config.toml").write_text(text.replace('[[bindings]]\nagentId = "work"\nchannel = "telegram"\n', ""))
    removed = claw(tmp_path, "agents", "rm", "work")
    assert removed.returncode == 0 and "kept" in removed.stdout
    assert (tmp_path / "workspace-work").is_dir()
    assert [r["agentId"] for r in json.loads(claw(tmp_path, "agents", "ls", "--json").stdout)] == ["main"]


def test_agent_flag_routes_a_turn_to_that_agent(claw_env) -> None:
    from tests.support.model_server import text

    home = claw_env.home
    assert claw(home, "agents", "add", "work").returncode == 0
    (home / "workspace-work" / "SOUL.md").write_text("You are the WORK agent.")
    claw_env.server.script(text("from work"))
    done = run_claw(claw_env.env, "agent", "-m", "hi", "--agent", "work")
    assert done.returncode == 0, done.stderr
    assert "You are the WORK agent." in claw_env.server.last_request().body["messages"][0]["content"]
    rows = json.loads(claw(home, "sessions", "ls", "--agent", "work", "--json").stdout)
    assert rows[0]["key"] == "agent:work:main"
