"""claw/safe_read.py: the rule for files the agent can write, on real files, links, FIFOs and directories."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from claw.agent.bootstrap import BootstrapLoader
from claw.safe_read import RefusedFile, read_agent_bytes, read_agent_text, read_agent_text_async


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "SOUL.md").write_text("soul\n")
    return ws


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_text("SECRET-KEY\n")
    return path


def test_a_regular_file_is_read_and_a_missing_one_is_none(workspace: Path) -> None:
    assert read_agent_text(workspace, "SOUL.md") == "soul\n"
    assert read_agent_text(workspace, "USER.md") is None


def test_a_link_inside_is_followed_and_one_out_is_refused(workspace: Path, secret: Path) -> None:
    (workspace / "AGENTS.md").symlink_to("SOUL.md")
    assert read_agent_text(workspace, "AGENTS.md") == "soul\n"
    (workspace / "USER.md").symlink_to(secret)
    (workspace / "memory" / "x.md").symlink_to("../../outside/id_rsa")
    (workspace / "notes").symlink_to(secret.parent)  # a directory on the way that leads out
    for name in ("USER.md", "memory/x.md", "notes/id_rsa"):
        with pytest.raises(RefusedFile, match="link that leads out of the workspace"):
            read_agent_bytes(workspace, name)


def test_a_fifo_is_refused_at_once_and_a_directory_too(workspace: Path) -> None:
    os.mkfifo(workspace / "USER.md")
    (workspace / "TOOLS.md").mkdir()
    with pytest.raises(RefusedFile, match="not a regular file"):
        read_agent_bytes(workspace, "USER.md")  # no writer ever opens it: a blocking open would hang here
    with pytest.raises(RefusedFile, match="is a directory"):
        read_agent_bytes(workspace, "TOOLS.md")


def test_a_hard_link_and_an_oversized_file_are_refused(workspace: Path, secret: Path) -> None:
    os.link(secret, workspace / "USER.md")
    with pytest.raises(RefusedFile, match="hard links"):
        read_agent_bytes(workspace, "USER.md")
    assert read_agent_bytes(workspace, "USER.md", allow_hardlinks=True) == b"SECRET-KEY\n"
    (workspace / "MEMORY.md").write_bytes(b"x" * 101)
    with pytest.raises(RefusedFile, match="101 bytes, over the 100-byte limit"):
        read_agent_bytes(workspace, "MEMORY.md", max_bytes=100)
    assert read_agent_bytes(workspace, "MEMORY.md", max_bytes=101) == b"x" * 101


async def test_the_async_read_refuses_a_fifo_without_blocking_the_loop(workspace: Path) -> None:
    os.mkfifo(workspace / "USER.md")
    async with asyncio.timeout(5):
        with pytest.raises(RefusedFile, match="not a regular file"):
            await read_agent_text_async(workspace, "USER.md")
        assert await read_agent_text_async(workspace, "SOUL.md") == "soul\n"


def test_the_bootstrap_loader_skips_planted_files_with_a_warning(
    workspace: Path, secret: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (workspace / "USER.md").symlink_to(secret)
    os.mkfifo(workspace / "IDENTITY.md")
    loader = BootstrapLoader()
    files = loader.load(workspace, 20_000, 150_000)
    assert [f.name for f in files] == ["SOUL.md"]
    warnings = [r.getMessage() for r in caplog.records]
    assert any("skipped bootstrap file" in w and "USER.md" in w and "leads out" in w for w in warnings)
    assert any("IDENTITY.md" in w and "not a regular file" in w for w in warnings)
    # The refusal is remembered until the file changes: the next prompt does not warn again.
    caplog.clear()
    assert [f.name for f in loader.load(workspace, 20_000, 150_000)] == ["SOUL.md"]
    assert not caplog.records
