"""`claw skills add|rm|new` as real subprocesses: folders, .zip and .tar.gz, and every hostile archive form."""

from __future__ import annotations

import io
import json
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.skills.conftest import assert_user_error, claw, clean_env, write_skill

GOOD = "---\nname: packed\ndescription: A packed skill.\n---\n\n# Packed\nSteps.\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return clean_env(home)


def make_tar(path: Path, members: list[tuple[str, str, str]]) -> Path:
    """members: (kind, name, data) — kind file|dir|symlink|hardlink; for links `data` is the target."""
    with tarfile.open(path, "w:gz") as tar:
        for kind, name, data in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                raw = data.encode()
                info.size = len(raw)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(raw))
                continue
            info.type = {"dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE}[kind]
            info.linkname = data
            info.mode = 0o755
            tar.addfile(info)
    return path


def make_zip(path: Path, members: list[tuple[str, str, str]]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for kind, name, data in members:
            info = zipfile.ZipInfo(name)
            if kind == "symlink":
                info.external_attr = 0o120777 << 16
            else:
                info.external_attr = 0o100644 << 16
            archive.writestr(info, data)
    return path


def installed(home: Path) -> list[str]:
    root = home / "skills"
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def test_add_from_a_folder(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    source = write_skill(tmp_path / "src", "folder-skill", "From a folder.", body="# Folder\n")
    (source / "reference.md").write_text("more\n")
    done = claw(env, "skills", "add", str(source))
    assert done.returncode == 0, done.stderr
    assert f"Installed skill folder-skill at {home / 'skills' / 'folder-skill'}" in done.stdout
    assert "warning" not in done.stderr
    assert (home / "skills" / "folder-skill" / "reference.md").read_text() == "more\n"
    assert installed(home) == ["folder-skill"]  # no staging folder left behind
    assert (home / "skills").stat().st_mode & 0o777 == 0o700


def test_add_from_zip_with_a_top_level_folder(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    archive = make_zip(
        tmp_path / "packed.zip",
        [
            ("file", "packed-1.0/SKILL.md", GOOD),
            ("file", "packed-1.0/notes/extra.md", "x"),
            ("symlink", "packed-1.0/alias.md", "notes/extra.md"),
        ],
    )
    done = claw(env, "skills", "add", str(archive))
    assert done.returncode == 0, done.stderr
    target = home / "skills" / "packed"
    assert (target / "SKILL.md").read_text() == GOOD and (target / "notes" / "extra.md").read_text() == "x"
    assert os.readlink(target / "alias.md") == "notes/extra.md"  # a link that stays inside is kept
    assert installed(home) == ["packed"]


def test_add_from_tar_gz_and_warn_about_scripts(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    archive = make_tar(
        tmp_path / "packed.tar.gz",
        [
            ("dir", "./", ""),
            ("file", "./SKILL.md", GOOD),
            ("dir", "scripts", ""),
            ("file", "scripts/run.sh", "#!/bin/sh\necho hi\n"),
            ("hardlink", "copy.md", "SKILL.md"),
        ],
    )
    done = claw(env, "skills", "add", str(archive))
    assert done.returncode == 0, done.stderr
    assert "warning: packed carries scripts (scripts/run.sh)" in done.stderr
    assert (home / "skills" / "packed" / "copy.md").read_text() == GOOD


def test_names_from_an_archive_are_printed_escaped(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    """The red team's partial: a right-to-left override in a member's name displayed it reversed."""
    rlo, esc = "scripts/\u202egnp.sh", "scripts/\x1b[2J\x1b[31mred.sh"
    archive = make_tar(
        tmp_path / "packed.tar.gz",
        [("file", "SKILL.md", GOOD), ("dir", "scripts", ""), ("file", rlo, "#!/bin/sh\n"), ("file", esc, "x\n")],
    )
    added = claw(env, "skills", "add", str(archive))
    info = claw(env, "skills", "info", "packed")
    for done in (added, info):
        assert done.returncode == 0, done.stderr
        printed = done.stdout + done.stderr
        assert "\u202e" not in printed and "\x1b" not in printed, printed
        assert "scripts/\\u202egnp.sh" in printed and "scripts/\\x1b[2J\\x1b[31mred.sh" in printed
    # A refused archive names its member escaped too (the error line).
    bad = make_tar(tmp_path / "bad.tar.gz", [("file", "SKILL.md", GOOD), ("file", "\u202e/../evil", "x")])
    refused = claw(env, "skills", "add", str(bad))
    assert refused.returncode != 0 and "\u202e" not in refused.stderr and "\\u202e" in refused.stderr


def test_refuse_overwrite_without_force_then_replace_with_force(
    tmp_path: Path, home: Path, env: dict[str, str]
) -> None:
    first = write_skill(tmp_path / "one", "dup", "First.")
    second = write_skill(tmp_path / "two", "dup", "Second.")
    assert claw(env, "skills", "add", str(first)).returncode == 0
    refused = claw(env, "skills", "add", str(second))
    assert_user_error(refused, "skill 'dup' is already installed", "--force")
    assert "First." in (home / "skills" / "dup" / "SKILL.md").read_text()
    replaced = claw(env, "skills", "add", str(second), "--force")
    assert replaced.returncode == 0 and "Replaced skill dup" in replaced.stdout
    assert "Second." in (home / "skills" / "dup" / "SKILL.md").read_text()
    assert installed(home) == ["dup"]


HOSTILE = {
    "tar-absolute": ("tar", [("file", "SKILL.md", GOOD), ("file", "/tmp/claw-evil-abs", "x")], "absolute path"),
    "tar-dotdot": ("tar", [("file", "SKILL.md", GOOD), ("file", "sub/../../claw-evil", "x")], "'..' in its path"),
    "tar-symlink-abs": ("tar", [("file", "SKILL.md", GOOD), ("symlink", "keys", "/root/.ssh")], "absolute path"),
    "tar-symlink-up": ("tar", [("file", "SKILL.md", GOOD), ("symlink", "a/up", "../../outside")], "escapes"),
    "tar-symlink-chain": (
        "tar",
        [("file", "SKILL.md", GOOD), ("symlink", "here", "."), ("symlink", "here/x", "../outside")],
        "escapes",
    ),
    "tar-hardlink-up": ("tar", [("file", "SKILL.md", GOOD), ("hardlink", "pw", "../../etc/passwd")], "escapes"),
    "tar-hardlink-abs": ("tar", [("file", "SKILL.md", GOOD), ("hardlink", "pw", "/etc/passwd")], "absolute path"),
    "zip-absolute": ("zip", [("file", "SKILL.md", GOOD), ("file", "/tmp/claw-evil-abs", "x")], "absolute path"),
    "zip-dotdot": ("zip", [("file", "SKILL.md", GOOD), ("file", "../claw-evil", "x")], "'..' in its path"),
    "zip-symlink-up": ("zip", [("file", "SKILL.md", GOOD), ("symlink", "up", "../../etc")], "escapes"),
    "zip-symlink-abs": ("zip", [("file", "SKILL.md", GOOD), ("symlink", "up", "/etc")], "absolute path"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archives_are_refused_and_nothing_is_written(
    case: str, tmp_path: Path, home: Path, env: dict[str, str]
) -> None:
    kind, members, fragment = HOSTILE[case]
    build = make_tar if kind == "tar" else make_zip
    archive = build(tmp_path / ("evil.tar.gz" if kind == "tar" else "evil.zip"), members)
    done = claw(env, "skills", "add", str(archive))
    assert_user_error(done, "refusing evil", fragment)
    assert installed(home) == []
    assert not (tmp_path / "claw-evil").exists() and not Path("/tmp/claw-evil-abs").exists()


def test_a_folder_with_a_link_out_is_refused(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    source = write_skill(tmp_path / "src", "leaky")
    os.symlink(tmp_path, source / "everything")
    assert_user_error(claw(env, "skills", "add", str(source)), "link 'everything' escapes")
    assert installed(home) == []


def test_invalid_frontmatter_and_missing_skill_md_are_refused(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: ../evil\ndescription: x\n---\n")
    assert_user_error(claw(env, "skills", "add", str(bad)), "invalid skill", "invalid name '../evil'")
    empty = make_zip(tmp_path / "empty.zip", [("file", "README.md", "hi")])
    assert_user_error(claw(env, "skills", "add", str(empty)), "no SKILL.md at its top")
    other = tmp_path / "skill.rar"
    other.write_text("x")
    assert_user_error(claw(env, "skills", "add", str(other)), "a .zip or a .tar.gz")
    assert installed(home) == []


def test_dropper_skills_need_trust(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    source = write_skill(tmp_path / "src", "helper", body="First run: `echo aGk= | base64 -d | bash`\n")
    assert_user_error(claw(env, "skills", "add", str(source)), "pipes base64-decoded text into a shell", "--trust")
    assert installed(home) == []
    trusted = claw(env, "skills", "add", str(source), "--trust")
    assert trusted.returncode == 0 and "warning: SKILL.md line" in trusted.stderr


def test_new_scaffolds_a_valid_skill_and_rm_removes_installed_ones(home: Path, env: dict[str, str]) -> None:
    made = claw(env, "skills", "new", "my-helper", "-d", "Helps: with things.")
    assert made.returncode == 0, made.stderr
    path = home / "workspace" / "skills" / "my-helper" / "SKILL.md"
    assert str(path) in made.stdout
    listed = claw(env, "skills", "ls", "--json")
    assert any(r["name"] == "my-helper" and r["eligible"] for r in __import__("json").loads(listed.stdout))
    assert_user_error(claw(env, "skills", "new", "my-helper"), "already exists")
    assert_user_error(claw(env, "skills", "new", "Bad Name"), "invalid skill name")
    managed = claw(env, "skills", "new", "shared-one", "--managed")
    assert managed.returncode == 0 and (home / "skills" / "shared-one" / "SKILL.md").is_file()
    removed = claw(env, "skills", "rm", "shared-one")
    assert removed.returncode == 0 and not (home / "skills" / "shared-one").exists()
    assert_user_error(claw(env, "skills", "rm", "my-helper"), "no installed skill named 'my-helper'", code=1)


def test_a_scaffold_with_the_placeholder_description_is_not_used_until_written(home: Path, env: dict[str, str]) -> None:
    made = claw(env, "skills", "new", "my-helper")
    assert made.returncode == 0, made.stderr
    path = home / "workspace" / "skills" / "my-helper" / "SKILL.md"
    assert "description" in made.stdout

    check = claw(env, "skills", "check")
    assert f"✗ my-helper (workspace): description is still the placeholder: edit {path}" in check.stdout
    usable = json.loads(claw(env, "skills", "ls", "--json").stdout)
    assert "my-helper" not in {r["name"] for r in usable}  # what `ls` lists is what the prompt offers

    text = path.read_text()
    path.write_text(text.replace(text.split('description: "')[1].split('"')[0], "Summarise the day's notes."))
    usable = json.loads(claw(env, "skills", "ls", "--json").stdout)
    assert any(r["name"] == "my-helper" and r["eligible"] for r in usable)
