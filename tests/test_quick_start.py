"""The README's Quick start: CI runs its test command verbatim, and both commands need only `python3`."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _command_after(heading: str) -> str:
    """The one line of the first ```sh block after the line `heading` in README.md."""
    readme = REPO.joinpath("README.md").read_text(encoding="utf-8")
    found = re.search(re.escape(heading) + r"\n+```sh\n(?P<body>.*?)\n```", readme, flags=re.S)
    assert found, f"README.md has no sh block after {heading!r}"
    lines = found["body"].strip().splitlines()
    assert len(lines) == 1, f"the Quick start promises one command, found {lines}"
    return lines[0]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    test_command = _command_after("Run the tests:")
    assert "pytest" in test_command
    ci_lines = REPO.joinpath(".ci", "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci_lines


def test_both_commands_make_their_own_environment() -> None:
    # A stock Debian/Ubuntu has `python3` but no `python`, and refuses `pip install` outside a venv.
    for heading in ("Install and run (Python ≥ 3.11, from a checkout):", "Run the tests:"):
        command = _command_after(heading)
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && "), command
