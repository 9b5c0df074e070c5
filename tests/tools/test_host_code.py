"""claw/tools/host_code.py: the walk-time guard that backs the approval question of write and edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from claw.errors import ClawError
from claw.tools.safe_open import write_file


def test_a_write_that_lands_in_a_hook_unapproved_is_refused_even_through_a_link(tmp_path: Path) -> None:
    """What the question saw can change before the write: the write checks where its walk really landed."""
    workspace = tmp_path / "ws"
    hook = workspace / "hooks" / "marker"
    hook.mkdir(parents=True)
    (hook / "handler.py").write_text("ORIGINAL\n")
    (workspace / "notes.txt").symlink_to("hooks/marker/handler.py")  # swapped in after the question
    for path in ("hooks/marker/handler.py", "notes.txt", "hooks/new/handler.py"):
        with pytest.raises(ClawError, match="workspace hook's file and this change was not approved"):
            write_file(workspace, path, b"EVIL\n", tool="write", allow_hardlinks=False)
    assert (hook / "handler.py").read_text() == "ORIGINAL\n"
    approved = (hook / "handler.py").resolve()
    write_file(workspace, "notes.txt", b"NEW\n", tool="write", allow_hardlinks=False, approved=approved)
    assert (hook / "handler.py").read_text() == "NEW\n"
    write_file(workspace, "other.txt", b"fine\n", tool="write", allow_hardlinks=False)  # no host code: no question
