"""`claw skills ls|info|check` as real subprocesses: rows, reasons, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from claw.paths import bundled_dir
from tests.skills.conftest import assert_user_error, claw, clean_env, write_skill
from tests.support.cli_help import help_pages, listed_commands

ROW_KEYS = {"name", "description", "source", "eligible", "reason", "path", "status"}


def test_ls_all_json_and_check(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ws = home / "workspace" / "skills"
    write_skill(ws, "daily-brief", "My own brief.")
    write_skill(ws, "needs-bin", metadata={"requires": {"bins": ["claw-test-absent-binary"]}})
    (ws / "broken").mkdir(parents=True)
    (ws / "broken" / "SKILL.md").write_text("---\nname: broken\n---\n")
    env = clean_env(home)

    rows = json.loads(claw(env, "skills", "ls", "--json").stdout)
    assert all(set(r) == ROW_KEYS for r in rows)
    by_name = {r["name"]: r for r in rows}
    assert by_name["daily-brief"] == {
        "name": "daily-brief",
        "description": "My own brief.",
        "source": "workspace",
        "eligible": True,
        "reason": "",
        "path": str(ws / "daily-brief" / "SKILL.md"),
        "status": "ok",
    }
    assert {"memory-notes", "automation-planner", "skill-writer"} <= set(by_name)
    assert "needs-bin" not in by_name and "broken" not in by_name

    every = json.loads(claw(env, "skills", "ls", "--all", "--json").stdout)
    statuses = {(r["name"], r["source"]): (r["status"], r["reason"]) for r in every}
    assert statuses[("needs-bin", "workspace")] == ("ineligible", "missing binaries on PATH: claw-test-absent-binary")
    assert statuses[("daily-brief", "bundled")][0] == "shadowed"
    status, reason = statuses[("broken", "workspace")]
    assert (
        status == "invalid" and str(ws / "broken" / "SKILL.md") in reason and "missing required 'description'" in reason
    )

    table = claw({**env, "COLUMNS": "200"}, "skills", "ls", "--all")
    assert table.returncode == 0
    assert "needs-bin" in table.stdout and "claw-test-absent-binary" in table.stdout and "broken" in table.stdout

    check = claw(env, "skills", "check")
    assert check.returncode == 0
    assert "✗ needs-bin (workspace): missing binaries on PATH: claw-test-absent-binary" in check.stdout
    assert "✓ daily-brief (workspace)" in check.stdout
    assert "~ daily-brief (bundled): shadowed by the workspace skill" in check.stdout
    assert "! broken (workspace): invalid" in check.stdout
    assert "1 not eligible, 1 shadowed, 1 invalid" in check.stdout


def test_check_per_channel_and_sender(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[skills.senders."telegram:42"]\ndeny = ["*"]\n')
    env = clean_env(home)
    data = json.loads(claw(env, "skills", "check", "--channel", "telegram", "--sender", "42", "--json").stdout)
    assert data["counts"]["ok"] == 0 and data["counts"]["ineligible"] >= 4
    assert all("denied for sender telegram:42" in r["reason"] for r in data["skills"] if r["status"] == "ineligible")
    other = json.loads(claw(env, "skills", "check", "--channel", "telegram", "--sender", "7", "--json").stdout)
    assert other["counts"]["ineligible"] == 0


def test_info(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = clean_env(home)
    done = claw(env, "skills", "info", "automation-planner", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["source"] == "bundled" and data["eligible"] and data["files"] == ["SKILL.md"]
    assert data["path"] == str(bundled_dir("skills") / "automation-planner" / "SKILL.md")
    assert data["userInvocable"] and data["command"] == "/automation_planner"
    text = claw(env, "skills", "info", "automation-planner")
    assert "automation-planner (bundled) — ready" in text.stdout and "/skill automation-planner" in text.stdout
    missing = claw(env, "skills", "info", "no-such-skill")
    assert_user_error(missing, "no skill named 'no-such-skill'", code=1)


def test_bad_config_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("[skills.limits]\nmaxSkillsInPrompt = -1\n")
    assert_user_error(claw(clean_env(home), "skills", "ls"), "skills.limits.maxSkillsInPrompt")


def test_skills_help_stays_import_light() -> None:
    heavy = ("yaml", "openai", "textual", "claw.skills", "claw.gateway.gateway")
    pages = help_pages(heavy, under=("skills",))
    group, commands = pages[0], pages[1:]
    assert group.path == ("skills",) and group.text.startswith("Usage: claw skills [OPTIONS] COMMAND")
    assert listed_commands(group.text) == ["ls", "info", "check", "add", "new", "rm"]  # as the module documents
    assert [page.path for page in commands if not page.hidden] == [("skills", n) for n in listed_commands(group.text)]
    for page in commands:
        assert page.text.startswith(page.usage) and "Options:" in page.text, page.text[:300]
    assert [(page.path, page.heavy) for page in pages if page.heavy] == []
