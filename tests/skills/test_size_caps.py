"""Size caps before parsing: a SKILL.md frontmatter over 64 KB is refused having read no more than that, and
a folder install is held to the archive limits before anything is copied."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from claw.skills.archive import MAX_MEMBERS, MAX_TOTAL_BYTES
from claw.skills.frontmatter import MAX_FRONTMATTER_BYTES, FrontmatterError, split_frontmatter
from claw.skills.parse import SkillParseError, parse_skill_file
from tests.skills.conftest import assert_user_error, claw, clean_env, write_skill

HEAD = "---\nname: big\ndescription: A skill with too much frontmatter.\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return clean_env(home)


def installed(home: Path) -> list[str]:
    root = home / "skills"
    return sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) if root.exists() else []


def test_a_50_mb_frontmatter_is_refused_after_reading_only_the_cap(tmp_path: Path) -> None:
    """The SKILL.md is a pipe fed 50 MB of frontmatter that never closes: the parser must stop reading at the
    cap. Had it read on, the writer would get far past the pipe's buffer before the reader closed its end."""
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)
    line = b"key: value value value value value value value value value value\n"
    written = [0]

    def feed() -> None:
        with open(fifo, "wb", buffering=0) as out:
            try:
                out.write(HEAD.encode())
                for _ in range(50 * 1024 * 1024 // len(line)):
                    written[0] += out.write(line)
            except BrokenPipeError:  # the reader stopped reading and closed: what we want
                pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    with pytest.raises(SkillParseError, match="larger than 64 KB"):
        parse_skill_file(fifo, tmp_path, "managed")
    writer.join(timeout=30)
    assert not writer.is_alive()
    pipe_buffer = 1024 * 1024  # Linux's largest default; usually 64 KiB
    assert written[0] < MAX_FRONTMATTER_BYTES + pipe_buffer + len(line), written[0]


def test_installing_a_skill_with_a_huge_frontmatter_is_refused(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    source = tmp_path / "big"
    source.mkdir()
    filler = "".join(f"key{i}: some value for the key\n" for i in range(150_000))  # ~5 MB, closed, valid YAML
    (source / "SKILL.md").write_text(HEAD + filler + "---\n\nBody.\n")

    done = claw(env, "skills", "add", str(source))
    assert_user_error(done, "invalid skill", "frontmatter is larger than 64 KB")
    assert installed(home) == []


@pytest.mark.parametrize("closer", ["---", "..."])
def test_a_frontmatter_up_to_the_cap_is_fine_and_one_byte_more_is_not(closer: str) -> None:
    pad = MAX_FRONTMATTER_BYTES - len(HEAD.encode()) - len("# \n")
    head = HEAD + "# " + "é" * (pad // 2) + "\n"  # two bytes a character: the cap is in bytes
    assert len(head.encode()) in (MAX_FRONTMATTER_BYTES, MAX_FRONTMATTER_BYTES - 1)
    yaml_text, body = split_frontmatter(head + f"{closer}\nbody\n")
    assert yaml_text.startswith("name: big") and body == "body\n"
    with pytest.raises(FrontmatterError, match="larger than 64 KB"):
        split_frontmatter(head + "#" * 2 + "\n" + f"{closer}\nbody\n")


def test_a_line_cut_at_the_cap_is_not_taken_for_the_closing_line() -> None:
    # One huge line: only its start is looked at, which must not read as `---`, nor as "never closed".
    with pytest.raises(FrontmatterError, match="larger than 64 KB"):
        split_frontmatter("---\n" + "-" * (2 * MAX_FRONTMATTER_BYTES))
    with pytest.raises(FrontmatterError, match="never closed"):
        split_frontmatter(HEAD + "k: v\n")


def test_a_folder_over_the_size_limit_is_refused_before_copying(
    tmp_path: Path, home: Path, env: dict[str, str]
) -> None:
    source = write_skill(tmp_path / "src", "bulky")
    with open(source / "data.bin", "wb") as sparse:  # sparse: no disk used, but 64 MB + 1 to read
        sparse.truncate(MAX_TOTAL_BYTES + 1)

    done = claw(env, "skills", "add", str(source))
    assert_user_error(done, f"refusing {source.name}", "the limit is 67,108,864")
    assert installed(home) == []


def test_a_folder_with_too_many_files_is_refused(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    source = write_skill(tmp_path / "src", "crowded")
    many = source / "many"
    many.mkdir()
    for i in range(MAX_MEMBERS + 1):
        (many / f"{i}.txt").touch()

    assert_user_error(claw(env, "skills", "add", str(source)), "members (the limit is 5,000)")
    assert installed(home) == []


def test_a_fifo_in_a_folder_is_refused_without_hanging(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    source = write_skill(tmp_path / "src", "piped")
    os.mkfifo(source / "pipe")
    assert_user_error(claw(env, "skills", "add", str(source), timeout=30), "'pipe' is a device, fifo")
    assert installed(home) == []


def test_a_folder_within_the_limits_still_installs(tmp_path: Path, home: Path, env: dict[str, str]) -> None:
    source = write_skill(tmp_path / "src", "fine")
    (source / "notes.md").write_text("x" * 100_000)
    os.symlink("notes.md", source / "link.md")

    done = claw(env, "skills", "add", str(source))
    assert done.returncode == 0, done.stderr
    assert installed(home) == ["fine"]
    target = home / "skills" / "fine"
    assert (target / "notes.md").read_text() == "x" * 100_000 and os.readlink(target / "link.md") == "notes.md"
