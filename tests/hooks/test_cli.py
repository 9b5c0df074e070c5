"""`claw hooks ls|enable|disable` as real subprocesses: rows, precedence, shadowing, config written."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from claw.paths import bundled_dir
from tests.hooks.conftest import RECORDER, claw, clean_env, write_hook

ROW_KEYS = {"name", "description", "events", "source", "enabled", "status", "reason", "path"}


def _rows(env: dict[str, str]) -> dict[tuple[str, str], dict]:
    done = claw(env, "hooks", "ls", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert all(set(row) == ROW_KEYS for row in rows)
    return {(row["name"], row["source"]): row for row in rows}


def _config(home: Path) -> dict:
    return tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))


def test_ls_shows_every_location_with_precedence_and_defaults(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_hook(home / "hooks", "mine", ["run:end"], RECORDER)
    write_hook(home / "workspace" / "hooks", "command-logger", ["command:new"], RECORDER)
    broken = home / "workspace" / "hooks" / "broken"
    broken.mkdir(parents=True)
    (broken / "HOOK.md").write_text("---\nname: broken\n---\n", encoding="utf-8")
    env = clean_env(home)

    rows = _rows(env)
    assert rows[("mine", "managed")] == {
        "name": "mine",
        "description": "The mine test hook.",
        "events": ["run:end"],
        "source": "managed",
        "enabled": True,
        "status": "enabled",
        "reason": "managed hooks run unless disabled",
        "path": str(home / "hooks" / "mine"),
    }
    memory = rows[("session-memory", "bundled")]
    assert memory["enabled"] is False and memory["events"] == ["command:new", "command:reset"]
    assert memory["path"] == str(bundled_dir("hooks") / "session-memory")
    assert rows[("command-logger", "workspace")]["status"] == "disabled"  # the workspace copy wins, but waits
    shadowed = rows[("command-logger", "bundled")]
    assert shadowed["status"] == "shadowed" and "shadowed by the workspace hook" in shadowed["reason"]
    bad = rows[("broken", "workspace")]
    assert bad["status"] == "invalid" and "missing 'events'" in bad["reason"]

    table = claw({**env, "COLUMNS": "200"}, "hooks", "ls")
    assert table.returncode == 0
    assert "mine" in table.stdout and "run:end" in table.stdout and "managed" in table.stdout
    assert "! broken (workspace): missing 'events'" in table.stdout
    marks = {line.split()[1]: line.split()[0] for line in table.stdout.splitlines()[1:] if "  " in line}
    assert marks["session-memory"] == "○" and marks["mine"] == "✓"  # disabled is a choice, not a failure
    assert "✗" not in table.stdout


def test_enable_and_disable_persist_in_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("# my settings\n[hooks]\ntimeoutSeconds = 5\n", encoding="utf-8")
    env = clean_env(home)

    done = claw(env, "hooks", "enable", "session-memory")
    assert done.returncode == 0, done.stderr
    assert "Enabled hook session-memory (bundled" in done.stdout
    assert _config(home)["hooks"] == {
        "timeoutSeconds": 5,
        "entries": {"session-memory": {"enabled": True, "source": "bundled"}},
    }
    assert "# my settings" in (home / "config.toml").read_text(encoding="utf-8")
    assert _rows(env)[("session-memory", "bundled")]["enabled"] is True

    # A workspace copy appearing later does not inherit the bundled copy's enablement.
    write_hook(home / "workspace" / "hooks", "session-memory", ["command:new"], RECORDER)
    row = _rows(env)[("session-memory", "workspace")]
    assert row["enabled"] is False and "enabled for the bundled copy" in row["reason"]
    done = claw(env, "hooks", "enable", "session-memory")
    assert "runs code the agent itself can edit" in done.stdout
    assert _rows(env)[("session-memory", "workspace")]["enabled"] is True

    done = claw(env, "hooks", "disable", "session-memory")
    assert done.returncode == 0 and "Disabled hook session-memory (workspace)." in done.stdout
    assert _config(home)["hooks"]["entries"]["session-memory"] == {"enabled": False}
    assert _rows(env)[("session-memory", "workspace")]["status"] == "disabled"


def test_user_errors_are_one_line(tmp_path: Path) -> None:
    env = clean_env(tmp_path / "home")
    done = claw(env, "hooks", "enable", "no-such-hook")
    assert done.returncode == 1
    assert done.stderr.strip() == "claw: no hook named 'no-such-hook' (see `claw hooks ls`)"
    done = claw(env, "hooks", "ls", "--agent", "ghost")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "unknown agent 'ghost'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_hook_the_agent_named_is_listed_escaped(tmp_path: Path) -> None:
    """A workspace hook (a folder the agent can write) named with a right-to-left override and an ESC."""
    home = tmp_path / "home"
    hostile = "gol\u202eyp.\x1b[31m"
    folder = home / "workspace" / "hooks" / "reversed"
    folder.mkdir(parents=True)
    (folder / "HOOK.md").write_text(f'---\nname: {hostile}\nevents: ["run:end"]\n---\n', encoding="utf-8")
    (folder / "handler.py").write_text("", encoding="utf-8")
    done = claw(clean_env(home), "hooks", "ls", "--wide")
    assert done.returncode == 0, done.stderr
    assert "\u202e" not in done.stdout and "\x1b" not in done.stdout, done.stdout
    assert "gol\\u202eyp.\\x1b[31m" in done.stdout
