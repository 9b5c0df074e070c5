"""The skills shipped in the repository's skills/ folder: each loads, is eligible on plain Linux, and says how."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from claw.config import Config, ConfigFile
from claw.paths import Paths, bundled_dir
from claw.skills.catalog import build_report

BUNDLED = ("memory-notes", "automation-planner", "daily-brief", "weekly-review", "skill-writer")
PLAIN_LINUX_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("home")
    paths = Paths(home, home)
    config = Config(ConfigFile(), path=paths.config_file, environ={})
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(PLAIN_LINUX_ENV)  # nothing from the developer's shell may make a skill eligible
    try:
        return build_report(paths, config, "main", home / "workspace")
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_every_folder_is_a_listed_bundled_skill() -> None:
    folders = sorted(p.name for p in bundled_dir("skills").iterdir() if p.is_dir())
    assert folders == sorted(BUNDLED)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_skill_loads_and_is_eligible_on_plain_linux(name: str, report) -> None:
    assert not report.discovery.invalid, report.discovery.invalid
    status = report.status(name)
    assert status is not None and status.skill.source == "bundled"
    if sys.platform.startswith("linux"):
        assert status.eligible, status.reason
    skill = status.skill
    assert skill.directory == bundled_dir("skills") / name and skill.name == name
    assert 60 <= len(skill.description) <= 300 and "Use when" in skill.description
    assert skill.user_invocable and not skill.disable_model_invocation
    body = Path(skill.file).read_text(encoding="utf-8").split("---", 2)[2]
    assert len(body.splitlines()) >= 25
    # It works with claw's own tools: it names at least one of them.
    assert any(tool in body for tool in ("`read`", "`write`", "`edit`", "`memory_search`", "`automations`", "claw "))
