"""The Discord adapter stays on its side of the boundary: its modules import neither the runtime, the
store, the gateway class nor another adapter (checked on the source, imports inside functions too)."""

from __future__ import annotations

import ast
from pathlib import Path

import claw.channels

FORBIDDEN = ("claw.agent", "claw.store", "claw.gateway.gateway", "claw.channels.telegram", "claw.channels.webhook")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_discord_modules_import_no_runtime_store_or_other_adapter() -> None:
    modules = sorted(Path(claw.channels.__file__).parent.glob("discord*.py"))
    assert len(modules) >= 5
    for path in modules:
        bad = {m for m in _imports(path) if m.startswith(FORBIDDEN)}
        assert not bad, f"{path.name} imports {sorted(bad)}"
        assert "discord" not in {m.split(".")[0] for m in _imports(path)}, "no discord.py: the protocol is ours"
