"""`claw workspace path|show|edit`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from claw.paths import bundled_dir
from tests.cli.conftest import assert_one_line_error

EDITOR_SCRIPT = """\
import os, sys
with open(sys.argv[1], "a", encoding="utf-8") as f:
    f.write(os.environ.get("APPEND_TEXT", "") + "x" * int(os.environ.get("APPEND_CHARS", "0")))
sys.exit(int(os.environ.get("EDITOR_EXIT", "0")))
"""


@pytest.fixture
def workspace(run_claw, claw_home: Path) -> Path:
    run_claw("init")
    return claw_home / "workspace"


@pytest.fixture
def editor(tmp_path: Path) -> str:
    script = tmp_path / "fake editor.py"
    script.write_text(EDITOR_SCRIPT)
    return f'"{sys.executable}" "{script}"'


def test_path_default_and_unknown_agent(run_claw, claw_home: Path) -> None:
    assert run_claw("workspace", "path").stdout.strip() == str(claw_home / "workspace")
    assert_one_line_error(run_claw("workspace", "path", "--agent", "ghost", expect=None), "ghost")


def test_show_table(run_claw, workspace: Path) -> None:
    (workspace / "TOOLS.md").write_text("t" * 25_000)
    (workspace / "IDENTITY.md").unlink()
    (workspace / "memory" / "2025-01-02.md").write_text("- note\n")
    (workspace / "skills" / "demo").mkdir()
    (workspace / "skills" / "demo" / "SKILL.md").write_text("---\nname: demo\n---\n")

    out = run_claw("workspace", "show", env={"COLUMNS": "120"}).stdout

    rows = {line.split()[0]: line for line in out.splitlines() if ".md" in line and not line.startswith("workspace")}
    assert not any(ch in out for ch in "│┃━─┏"), out  # a plain table like every other listing, no box
    soul_chars = len((bundled_dir("workspace-template") / "SOUL.md").read_text().rstrip())
    assert f"{soul_chars:,}" in rows["SOUL.md"] and "20,000" in rows["SOUL.md"] and "ok" in rows["SOUL.md"]
    assert "25,000" in rows["TOOLS.md"] and "TRUNCATED" in rows["TOOLS.md"]
    assert "missing" in rows["IDENTITY.md"]
    assert "MEMORY.md" in rows
    assert "memory/: 1 daily notes" in out
    assert "skills/: 1 skills" in out

    data = json.loads(run_claw("workspace", "show", "--json").stdout)
    by_name = {f["name"]: f for f in data["files"]}
    assert by_name["TOOLS.md"]["truncated"] is True
    assert by_name["SOUL.md"] == {
        "name": "SOUL.md",
        "exists": True,
        "chars": soul_chars,
        "cap": 20000,
        "truncated": False,
        "refused": None,
    }
    assert data["dailyNotes"] == 1 and data["skills"] == 1


def test_show_file(run_claw, workspace: Path) -> None:
    (workspace / "USER.md").write_text("I like tea.\n")
    assert run_claw("workspace", "show", "user").stdout == "I like tea.\n"
    assert run_claw("workspace", "show", "USER.md").stdout == "I like tea.\n"


@pytest.mark.parametrize("command", [["show"], ["edit"]])
def test_bad_name_exits_2(run_claw, workspace: Path, command: list[str]) -> None:
    done = run_claw("workspace", *command, "soulmate", expect=None)
    assert_one_line_error(done, "soulmate", "soul (SOUL.md)")


def test_edit_reports_size_against_cap(run_claw, workspace: Path, editor: str) -> None:
    soul = workspace / "SOUL.md"
    before = soul.read_text()
    done = run_claw("workspace", "edit", "soul", env={"EDITOR": editor, "APPEND_TEXT": "\nBe brief.\n"})

    assert soul.read_text() == before + "\nBe brief.\n"
    size = len(soul.read_text().rstrip())
    assert f"SOUL.md: {size:,} chars of 20,000 cap" in done.stdout
    assert "TRUNCATED" not in done.stdout


def test_edit_warns_when_file_will_be_truncated(run_claw, workspace: Path, editor: str) -> None:
    run_claw("config", "set", "agents.defaults.bootstrapMaxChars", "1000")
    done = run_claw("workspace", "edit", "AGENTS", env={"VISUAL": editor, "APPEND_CHARS": "1500"})

    assert "of 1,000 cap" in done.stdout
    assert "TRUNCATED to 1,000 (70% head / 20% tail)" in done.stdout


def test_edit_creates_missing_file_from_template(run_claw, workspace: Path, editor: str) -> None:
    (workspace / "IDENTITY.md").unlink()
    done = run_claw("workspace", "edit", "identity", env={"EDITOR": editor, "APPEND_TEXT": "Name: Pip\n"})
    template = (bundled_dir("workspace-template") / "IDENTITY.md").read_text()
    assert (workspace / "IDENTITY.md").read_text() == template + "Name: Pip\n"
    assert "created" in done.stdout


@pytest.mark.parametrize(
    ("env", "fragment"),
    [({"EDITOR_EXIT": "3"}, "status 3"), ({"EDITOR": "/no/such/editor"}, "editor not found")],
)
def test_edit_editor_failure_is_one_line(
    run_claw, workspace: Path, editor: str, env: dict, fragment: str
) -> None:
    done = run_claw("workspace", "edit", "soul", env={"EDITOR": editor, **env}, expect=None)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claw: ") and fragment in lines[0]
