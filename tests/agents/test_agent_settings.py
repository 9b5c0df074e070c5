"""Agent settings inherit from [agents.defaults] key by key; an agent's own keys win; flags win over both."""

from __future__ import annotations

from pathlib import Path

import pytest

from claw.config import AgentSettings, load_config
from claw.errors import ConfigError
from claw.paths import Paths

DEFAULTS = """
[agents.defaults]
model = { primary = "openai/base-model", fallbacks = ["openai/backup"] }
maxConcurrent = 3
timeoutSeconds = 120
contextTokens = 64000
reserveTokens = 5000
maxToolRounds = 12
bootstrapMaxChars = 9000
bootstrapTotalMaxChars = 50000
[agents.defaults.tools.exec]
security = "deny"
timeoutSeconds = 30

[agents.list.work]
timeoutSeconds = 60
[agents.list.work.tools.exec]
security = "full"

[agents.list.plain]
"""


def load(tmp_path: Path, text: str):
    (tmp_path / "config.toml").write_text(text)
    return load_config(Paths(tmp_path, tmp_path), environ={})


def test_every_setting_is_inherited(tmp_path: Path) -> None:
    config = load(tmp_path, DEFAULTS)
    plain, defaults = config.agent("plain"), config.defaults
    for name in AgentSettings.model_fields:
        assert getattr(plain, name) == getattr(defaults, name), name
    assert plain.model.primary == "openai/base-model" and plain.tools.exec.security == "deny"


def test_own_keys_win_and_nested_keys_merge(tmp_path: Path) -> None:
    work = load(tmp_path, DEFAULTS).agent("work")
    assert work.timeout_seconds == 60
    assert work.max_tool_rounds == 12  # inherited
    assert work.tools.exec.security == "full"  # own
    assert work.tools.exec.timeout_seconds == 30  # inherited from the defaults' nested table


def test_the_model_can_be_overridden_per_agent(tmp_path: Path) -> None:
    config = load(tmp_path, DEFAULTS + '[agents.list.other]\nmodel = "ollama/qwen3:8b"\n')
    assert config.agent("other").model.chain() == ["ollama/qwen3:8b"]
    assert config.agent("work").model.chain() == ["openai/base-model", "openai/backup"]


def test_a_binding_to_an_unknown_agent_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"bindings\[0\]\.agentId: unknown agent 'ghost'"):
        load(tmp_path, '[[bindings]]\nagentId = "ghost"\nchannel = "telegram"\n')


def test_an_unknown_agent_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown agent 'nope'"):
        load(tmp_path, DEFAULTS).agent("nope")
