"""claw/ type-checks: mypy, at the setting of `[tool.mypy]` in pyproject.toml, finds no error.

mypy runs in a subprocess on this working tree with the repository's own configuration, so an error
fails here with mypy's report: file, line, message and code. Its cache is the repository's `.mypy_cache`
(ignored by git): a cold run takes ~15 s of CPU, a run after a small change a few seconds.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(600)  # a cold cache on a loaded 2-core machine, beside the rest of the suite
def test_claw_type_checks() -> None:
    done = subprocess.run(  # no paths given: `files` of [tool.mypy] says what is checked
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=590,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Every module of claw/ was checked: a `files` setting that named less would pass with fewer.
    checked = re.search(r"no issues found in (\d+) source files", done.stdout)
    assert checked, done.stdout
    assert int(checked.group(1)) == len(list((ROOT / "claw").rglob("*.py"))), done.stdout
