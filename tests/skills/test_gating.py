"""Gating: each reason a skill can be ineligible, as one line, and what makes it eligible again."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from claw.config import Config, ConfigFile
from claw.paths import Paths
from claw.skills.catalog import gate_context
from claw.skills.gating import GateContext, ineligibility
from claw.skills.parse import parse_skill_text


def skill(metadata: str = "", name: str = "tool", source: str = "managed"):
    meta = f"metadata: {metadata}\n" if metadata else ""
    return parse_skill_text(f"---\nname: {name}\ndescription: d\n{meta}---\n", Path("/s") / name, source)


def ctx_for(raw: dict[str, Any], agent: str = "main", **kwargs: Any) -> GateContext:
    config = Config(ConfigFile.model_validate(raw), path=Path("/c/config.toml"), environ={})
    base = gate_context(config, agent, kwargs.pop("channel", "cli"), kwargs.pop("sender_id", "local"))
    fields = {name: getattr(base, name) for name in ("agent_id", "agent_skills", "settings", "channel", "sender_id")}
    fields["config_data"] = base.config_data
    return GateContext(**{**fields, **kwargs})


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """A PATH directory holding one executable, `present-tool`."""
    folder = tmp_path / "bin"
    folder.mkdir()
    exe = folder / "present-tool"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return folder


def test_no_requirements_is_eligible() -> None:
    assert ineligibility(skill(), ctx_for({}, environ={})) is None


def test_required_binaries(bin_dir: Path) -> None:
    env = {"PATH": str(bin_dir)}
    ok = skill('{"requires": {"bins": ["present-tool"]}}')
    assert ineligibility(ok, ctx_for({}, environ=env)) is None
    missing = skill('{"requires": {"bins": ["present-tool", "absent-tool", "gone-too"]}}')
    assert ineligibility(missing, ctx_for({}, environ=env)) == "missing binaries on PATH: absent-tool, gone-too"


def test_any_of_binaries(bin_dir: Path) -> None:
    env = {"PATH": str(bin_dir)}
    assert ineligibility(skill('{"requires": {"anyBins": ["nope", "present-tool"]}}'), ctx_for({}, environ=env)) is None
    reason = ineligibility(skill('{"requires": {"anyBins": ["nope", "nada"]}}'), ctx_for({}, environ=env))
    assert reason == "needs one of these binaries on PATH: nope, nada"


def test_env_set_or_provided_by_config() -> None:
    needs = skill('{"openclaw": {"requires": {"env": ["WEATHER_KEY"]}, "primaryEnv": "WEATHER_KEY"}}', "weather")
    reason = ineligibility(needs, ctx_for({}, environ={}))
    assert reason == "env not set: WEATHER_KEY (export it, or set skills.entries.weather.env)"
    assert ineligibility(needs, ctx_for({}, environ={"WEATHER_KEY": ""})) == reason  # empty counts as unset
    assert ineligibility(needs, ctx_for({}, environ={"WEATHER_KEY": "k"})) is None
    by_env = {"skills": {"entries": {"weather": {"env": {"WEATHER_KEY": "k"}}}}}
    assert ineligibility(needs, ctx_for(by_env, environ={})) is None
    by_api_key = {"skills": {"entries": {"weather": {"apiKey": "k"}}}}
    assert ineligibility(needs, ctx_for(by_api_key, environ={})) is None


def test_os() -> None:
    mac_only = skill('{"os": ["darwin"]}')
    assert ineligibility(mac_only, ctx_for({}, environ={}, platform="linux")) == "needs os darwin (this is linux)"
    assert ineligibility(mac_only, ctx_for({}, environ={}, platform="darwin")) is None


def test_required_config_values() -> None:
    needs = skill('{"requires": {"config": ["gateway.port", "browser.enabled"]}}', "browse")
    assert ineligibility(needs, ctx_for({}, environ={})) == "config not set: browser.enabled"
    own = {"skills": {"entries": {"browse": {"config": {"browser": {"enabled": True}}}}}}
    assert ineligibility(needs, ctx_for(own, environ={})) is None


def test_every_missing_requirement_is_named_in_one_line() -> None:
    needs = skill('{"requires": {"bins": ["absent-tool"], "env": ["NOPE"]}, "os": ["win32"]}')
    reason = ineligibility(needs, ctx_for({}, environ={}, platform="linux"))
    assert reason is not None and "\n" not in reason
    assert reason.count("; ") == 2 and "win32" in reason and "absent-tool" in reason and "NOPE" in reason


def test_always_skips_requirements_but_not_policy() -> None:
    forced = skill('{"openclaw": {"always": true, "requires": {"bins": ["absent-tool"]}, "os": ["win32"]}}')
    assert ineligibility(forced, ctx_for({}, environ={}, platform="linux")) is None
    disabled = {"skills": {"entries": {"tool": {"enabled": False}}}}
    assert "disabled in config" in ineligibility(forced, ctx_for(disabled, environ={}))


def test_disabled_in_config_and_skill_key() -> None:
    keyed = skill('{"skillKey": "other-key"}')
    raw = {"skills": {"entries": {"other-key": {"enabled": False}}}}
    assert ineligibility(keyed, ctx_for(raw)) == "disabled in config (skills.entries.other-key.enabled = false)"


def test_allow_bundled_applies_to_bundled_skills_only() -> None:
    raw = {"skills": {"allowBundled": ["memory-notes"]}}
    assert ineligibility(skill(source="bundled"), ctx_for(raw)) == "bundled skill not in skills.allowBundled"
    assert ineligibility(skill(name="memory-notes", source="bundled"), ctx_for(raw)) is None
    assert ineligibility(skill(source="workspace"), ctx_for(raw)) is None


def test_agent_list_replaces_the_default_set() -> None:
    raw = {
        "agents": {
            "defaults": {"skills": ["tool", "other"]},
            "list": {"work": {"skills": ["other"]}, "none": {"skills": []}},
        }
    }
    assert ineligibility(skill(), ctx_for(raw, "main")) is None
    assert (
        ineligibility(skill(), ctx_for(raw, "work")) == "not enabled for agent work (its skills list does not name it)"
    )
    assert ineligibility(skill(), ctx_for(raw, "none")) == "not enabled for agent none (its skills list is empty)"
    assert ineligibility(skill(name="other"), ctx_for(raw, "work")) is None


def test_channel_allow_and_deny() -> None:
    raw = {"skills": {"channels": {"telegram": {"deny": ["tool"]}, "webhook": {"allow": ["memory-notes"]}}}}
    assert ineligibility(skill(), ctx_for(raw, channel="cli")) is None
    assert (
        ineligibility(skill(), ctx_for(raw, channel="telegram"))
        == "denied for channel telegram (skills.channels.telegram.deny)"
    )
    assert (
        ineligibility(skill(), ctx_for(raw, channel="webhook"))
        == "not allowed for channel webhook (skills.channels.webhook.allow)"
    )
    assert ineligibility(skill(name="memory-notes"), ctx_for(raw, channel="webhook")) is None
    everywhere = {"skills": {"channels": {"*": {"deny": ["tool"]}}}}
    assert (
        ineligibility(skill(), ctx_for(everywhere, channel="cli"))
        == 'denied for channel "*" (skills.channels."*".deny)'
    )


def test_sender_allow_and_deny() -> None:
    raw = {"skills": {"senders": {"telegram:42": {"deny": ["*"]}, "telegram:7": {"allow": ["tool"]}}}}
    assert ineligibility(skill(), ctx_for(raw, channel="telegram", sender_id="1")) is None
    reason = ineligibility(skill(), ctx_for(raw, channel="telegram", sender_id="42"))
    assert reason == 'denied for sender telegram:42 (skills.senders."telegram:42".deny)'
    assert ineligibility(skill(), ctx_for(raw, channel="telegram", sender_id="7")) is None
    reason = ineligibility(skill(name="x"), ctx_for(raw, channel="telegram", sender_id="7"))
    assert reason == 'not allowed for sender telegram:7 (skills.senders."telegram:7".allow)'


def test_real_path_lookup_uses_the_process_environment() -> None:
    if not os.environ.get("PATH"):
        pytest.skip("no PATH")
    config = Config(ConfigFile(), path=Paths(Path("/x"), Path("/x")).config_file, environ={})
    assert ineligibility(skill('{"requires": {"bins": ["sh"]}}'), gate_context(config, "main")) is None
