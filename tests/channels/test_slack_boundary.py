"""The Slack adapter stays on its side of the boundary: its modules import neither the runtime, the store, the
gateway class nor another adapter (checked on the source, imports inside functions too)."""

from __future__ import annotations

from pathlib import Path

import claw.channels
from tests.channels.test_discord_boundary import _imports

FORBIDDEN = ("claw.agent", "claw.store", "claw.gateway.gateway", "claw.channels.telegram", "claw.channels.webhook",
             "claw.channels.discord", "claw.channels.feishu")  # fmt: skip


def test_slack_modules_import_no_runtime_store_or_other_adapter() -> None:
    modules = sorted(Path(claw.channels.__file__).parent.glob("slack*.py"))
    assert len(modules) >= 7
    for path in modules:
        bad = {m for m in _imports(path) if m.startswith(FORBIDDEN)}
        assert not bad, f"{path.name} imports {sorted(bad)}"
