"""Every table the README and the docs pages show in config.toml can be set with `claw config set` (`models.prices` too,
which the loader keeps apart from the per-model tables under `models`)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claw.config_edit import resolve_key

REPO = Path(__file__).resolve().parents[2]
# The README and every hand-written docs page (the generated reference lists keys, not example tables).
PAGES = [REPO / "README.md", *sorted(path for path in (REPO / "docs").rglob("*.md") if "reference" not in path.parts)]


def _leaves(table: dict[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[str]:
    for key, value in table.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, (*prefix, key))
        else:
            yield ".".join((*prefix, key))


def _readme_keys() -> list[str]:
    blocks = [
        block for page in PAGES for block in re.findall(r"```toml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    ]
    return sorted({key for block in blocks for key in _leaves(tomllib.loads(block))})


def test_the_readme_shows_prices_among_its_tables() -> None:
    assert "models.prices.openai/gpt-4o-mini.input" in _readme_keys()


@pytest.mark.parametrize("key", _readme_keys())
def test_every_key_the_readme_shows_is_a_config_key(key: str) -> None:
    assert resolve_key(key) == tuple(key.split("."))


def test_set_a_model_price_then_get_it(run_claw, claw_home: Path) -> None:
    half = run_claw("config", "set", "models.prices.openai/x.input", "1.0", expect=2)  # a price has both halves
    assert half.returncode == 2 and 'models.prices."openai/x".output' in half.stderr
    run_claw("config", "set", "models.prices.openai/x", "{input = 0.5, output = 2.0}")
    run_claw("config", "set", "models.prices.openai/x.input", "1.0")
    run_claw("config", "set", "models.openai/x.contextWindow", "32000")
    file = tomllib.loads((claw_home / "config.toml").read_text(encoding="utf-8"))
    assert file["models"] == {
        "prices": {"openai/x": {"input": 1.0, "output": 2.0}},
        "openai/x": {"contextWindow": 32000},
    }
    assert run_claw("config", "get", "models.prices.openai/x.input").stdout.strip() == "1.0"
    bad = run_claw("config", "set", "models.prices.openai/x.inptu", "1.0", expect=None)
    assert bad.returncode == 2 and "inptu" in bad.stderr and "Traceback" not in bad.stderr
