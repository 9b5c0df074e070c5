"""Each platform adapter stays on its side of the channel boundary: its package (claw/channels/<platform>/)
imports neither the runtime, the store, the gateway class nor another platform's modules, checked on the
source so that imports inside functions count too.

The platforms are the fields of `[channels]` that are not shared settings, so a new platform is
covered the day its settings join `ChannelsSettings`, without touching this file; composition's table
(`CHANNEL_PLATFORMS`) must list exactly those."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import claw.channels
from claw.compose import CHANNEL_PLATFORMS
from claw.settings.channels import ChannelsSettings

CHANNELS = Path(claw.channels.__file__).parent
SHARED_SECTIONS = {"outbox"}
FORBIDDEN = ("claw.agent", "claw.store", "claw.gateway.gateway")
PLATFORMS = sorted(set(ChannelsSettings.model_fields) - SHARED_SECTIONS)


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _modules(platform: str) -> list[Path]:
    return sorted(CHANNELS.joinpath(platform).glob("*.py"))


def _belongs_to(module: str, platform: str) -> bool:
    return module == f"claw.channels.{platform}" or module.startswith(f"claw.channels.{platform}.")


def test_every_platform_is_found() -> None:
    assert {"webhook", "telegram", "discord", "feishu", "dingtalk", "slack"} <= set(PLATFORMS)
    for platform in PLATFORMS:
        assert CHANNELS.joinpath(platform, "adapter.py").is_file(), f"[channels.{platform}] has no package"


def test_composition_lists_every_platform_once() -> None:
    names = [platform.name for platform in CHANNEL_PLATFORMS]
    assert sorted(names) == PLATFORMS, "claw/compose.py's CHANNEL_PLATFORMS and [channels] disagree"


def test_no_shared_module_names_a_platform() -> None:
    """What is not a platform's package knows no platform: adapters, routes and checks come from the table."""
    for path in sorted(CHANNELS.glob("*.py")):
        bad = {m for m in _imports(path) if any(_belongs_to(m, p) for p in PLATFORMS)}
        assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_adapter_imports_no_runtime_store_gateway_or_other_adapter(platform: str) -> None:
    others = [p for p in PLATFORMS if p != platform]
    for path in _modules(platform):
        imports = _imports(path)
        bad = {m for m in imports if m.startswith(FORBIDDEN) or any(_belongs_to(m, o) for o in others)}
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_discord_speaks_its_own_protocol() -> None:
    assert all("discord" not in {m.split(".")[0] for m in _imports(p)} for p in _modules("discord"))
