"""The layers of DESIGN.md hold: the import contracts in pyproject.toml (`[tool.importlinter]`) are kept.

import-linter runs in a subprocess on this working tree with the repository's own configuration, so a
broken contract fails here with its report: each forbidden import, its chain and its line.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

ALL_BUT = {
    "channels-via-gateway": ("claw.store", {"claw.store.db"}),
}
"""Contracts that forbid all of a package but a few modules. import-linter cannot say "all but", so they
list the other modules one by one; these are the package and the modules it leaves allowed."""


def test_import_contracts_are_kept() -> None:
    lint = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    done = subprocess.run(  # cwd first on sys.path: the claw of this tree is the one analysed
        [sys.executable, "-c", lint, "--no-cache", "--no-logo", str(PYPROJECT)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("contract_id", sorted(ALL_BUT))
def test_contracts_listing_a_package_name_each_of_its_modules(contract_id: str) -> None:
    """A module added to such a package is forbidden too, not allowed by omission: it must be listed."""
    package, allowed = ALL_BUT[contract_id]
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["id"] == contract_id)
    listed = {name for name in contract["forbidden_modules"] if name == package or name.startswith(package + ".")}
    modules = _modules(package)
    missing = sorted(modules - allowed - listed)
    assert not missing, f"add {missing} to forbidden_modules of {contract_id!r} in pyproject.toml"
    assert allowed <= modules, f"{sorted(allowed - modules)} are gone: update ALL_BUT in tests/test_layers.py"
    assert not listed & allowed, f"{contract_id!r} forbids what ALL_BUT in tests/test_layers.py allows"


def _modules(package: str) -> set[str]:
    """Every module of `package` (itself included), from its files."""
    found = set()
    for path in ROOT.joinpath(*package.split(".")).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found
