"""Discovery: the four locations in precedence order, shadowing, and skipping what cannot load."""

from __future__ import annotations

import os
from pathlib import Path

from claw.config import Config, ConfigFile
from claw.paths import Paths, bundled_dir
from claw.skills.catalog import build_report, skill_roots
from claw.skills.discovery import SkillRoot, discover
from tests.skills.conftest import write_skill


def _roots(tmp_path: Path) -> list[SkillRoot]:
    return [
        SkillRoot("workspace", tmp_path / "ws"),
        SkillRoot("managed", tmp_path / "managed"),
        SkillRoot("bundled", tmp_path / "bundled"),
        SkillRoot("extra", tmp_path / "extra"),
    ]


def test_highest_location_wins_and_the_rest_are_shadowed(tmp_path: Path) -> None:
    roots = _roots(tmp_path)
    for root in roots:
        write_skill(root.path, "common", f"from {root.source}")
    write_skill(roots[1].path, "managed-and-extra", "managed copy")
    write_skill(roots[3].path, "managed-and-extra", "extra copy")
    write_skill(roots[3].path, "only-extra")
    found = discover(roots)
    assert [s.name for s in found.skills] == ["common", "managed-and-extra", "only-extra"]
    common = found.get("common")
    assert common.source == "workspace" and common.description == "from workspace"
    assert found.get("managed-and-extra").source == "managed"
    assert found.get("only-extra").source == "extra"
    shadowed = sorted((s.skill.name, s.skill.source, s.winner.source) for s in found.shadowed)
    assert shadowed == [
        ("common", "bundled", "workspace"),
        ("common", "extra", "workspace"),
        ("common", "managed", "workspace"),
        ("managed-and-extra", "extra", "managed"),
    ]


def test_name_comes_from_frontmatter_not_folder(tmp_path: Path) -> None:
    roots = _roots(tmp_path)
    write_skill(roots[0].path, "renamed", folder="folder-name")
    write_skill(roots[2].path, "renamed", "bundled")
    found = discover(roots)
    assert found.get("renamed").directory.name == "folder-name"
    assert [s.skill.source for s in found.shadowed] == ["bundled"]


def test_a_malformed_skill_is_skipped_with_file_and_reason_and_others_load(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write_skill(ws, "good")
    (ws / "broken").mkdir()
    (ws / "broken" / "SKILL.md").write_text("no frontmatter here\n")
    (ws / "nodesc").mkdir()
    (ws / "nodesc" / "SKILL.md").write_text("---\nname: nodesc\n---\n")
    (ws / "not-a-skill").mkdir()  # no SKILL.md: silently not a skill
    (ws / ".hidden").mkdir()
    (ws / ".hidden" / "SKILL.md").write_text("garbage")
    (ws / "binary").mkdir()
    (ws / "binary" / "SKILL.md").write_bytes(b"---\nname: \xff\xfe\n---\n")
    found = discover([SkillRoot("workspace", ws)])
    assert [s.name for s in found.skills] == ["good"]
    reasons = {bad.name: (bad.path, bad.reason) for bad in found.invalid}
    assert set(reasons) == {"broken", "nodesc", "binary"}
    assert reasons["broken"] == (ws / "broken", "no YAML frontmatter (the file must start with a '---' line)")
    assert "missing required 'description'" in reasons["nodesc"][1]
    assert "not UTF-8" in reasons["binary"][1]


def test_size_limit_and_per_root_limit(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write_skill(ws, "big", body="x" * 5000)
    for i in range(3):
        write_skill(tmp_path / "many", f"s{i}")
    found = discover([SkillRoot("workspace", ws)], max_file_bytes=1024)
    assert not found.skills and "over the 1,024-byte limit" in found.invalid[0].reason
    capped = discover([SkillRoot("managed", tmp_path / "many")], max_per_root=2)
    assert [s.name for s in capped.skills] == ["s0", "s1"]
    assert "more than 2 skills" in capped.invalid[0].reason


def test_symlinks_that_leave_the_skills_folder_are_skipped(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    outside = write_skill(tmp_path / "elsewhere", "outside")
    ws.mkdir()
    os.symlink(outside, ws / "linked-dir")
    (ws / "linked-file").mkdir()
    os.symlink(outside / "SKILL.md", ws / "linked-file" / "SKILL.md")
    inner = write_skill(ws, "inner")
    os.symlink(inner, ws / "alias")  # stays inside: fine (and a shadowed duplicate of "inner")
    found = discover([SkillRoot("workspace", ws)])
    assert [s.name for s in found.skills] == ["inner"]
    assert sorted(b.name for b in found.invalid) == ["linked-dir", "linked-file"]
    assert all("outside its skills folder" in b.reason for b in found.invalid)


def test_stamp_changes_when_a_skill_is_added_edited_or_removed(tmp_path: Path) -> None:
    roots = _roots(tmp_path)
    first = discover(roots).stamp
    assert discover(roots).stamp == first
    folder = write_skill(roots[1].path, "new")
    added = discover(roots).stamp
    assert added != first
    (folder / "SKILL.md").write_text("---\nname: new\ndescription: longer description now\n---\n")
    os.utime(folder / "SKILL.md", ns=(1, 1))
    edited = discover(roots)
    assert edited.stamp not in (first, added) and edited.get("new").description == "longer description now"
    (folder / "SKILL.md").unlink()
    removed = discover(roots)
    assert not removed.skills and removed.stamp not in (added, edited.stamp)


def test_catalog_uses_the_real_locations_in_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    paths = Paths(home, home)
    config = Config(ConfigFile.model_validate({"skills": {"extraDirs": ["extra-skills"]}}), path=paths.config_file)
    workspace = tmp_path / "workspace"
    roots = skill_roots(paths, config, workspace)
    assert [(r.source, r.path) for r in roots] == [
        ("workspace", workspace / "skills"),
        ("managed", home / "skills"),
        ("bundled", bundled_dir("skills")),
        ("extra", home / "extra-skills"),
    ]
    write_skill(workspace / "skills", "daily-brief", "my own brief")
    write_skill(home / "skills", "memory-notes", "installed notes")
    write_skill(home / "extra-skills", "skill-writer", "extra writer")
    report = build_report(paths, config, "main", workspace)
    rows = {r["name"]: r for r in report.rows()}
    assert rows["daily-brief"]["source"] == "workspace" and rows["daily-brief"]["description"] == "my own brief"
    assert rows["memory-notes"]["source"] == "managed"
    assert rows["skill-writer"]["source"] == "bundled"
    every = report.rows(include_all=True)
    shadowed = {(r["name"], r["source"]) for r in every if r["status"] == "shadowed"}
    assert shadowed == {("daily-brief", "bundled"), ("memory-notes", "bundled"), ("skill-writer", "extra")}
    reason = next(r["reason"] for r in every if r["name"] == "daily-brief" and r["status"] == "shadowed")
    assert reason == f"shadowed by the workspace skill at {workspace / 'skills' / 'daily-brief' / 'SKILL.md'}"
