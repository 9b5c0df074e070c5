"""`toolCallFormat` per model: found under the same keys as `contextWindow`, and a bad value is one line, exit 2."""

from __future__ import annotations

from claw.agent.text_calls import tool_call_format
from claw.config import ModelSettings
from claw.providers.text_tools.calls import FORMATS
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw


def test_the_format_is_looked_up_by_ref_then_bare_model_name() -> None:
    models = {
        "ollama/qwen3:8b": ModelSettings(tool_call_format="hermes"),
        "mistral-small": ModelSettings(tool_call_format="mistral"),
        "vllm/served": ModelSettings(context_window=8192),  # a window alone leaves the format to the next key
        "served": ModelSettings(tool_call_format="native"),
    }
    assert tool_call_format("ollama/qwen3:8b", models) == "hermes"
    assert tool_call_format("ollama/mistral-small", models) == "mistral"
    assert tool_call_format("vllm/served", models) == "native"
    assert tool_call_format("ollama/other", models) == "auto"


def test_config_accepts_exactly_the_formats_the_parsers_know() -> None:
    for fmt in FORMATS:
        assert ModelSettings.model_validate({"toolCallFormat": fmt}).tool_call_format == fmt


def test_a_bad_format_is_one_line_naming_the_key_and_exit_2(claw_env: ClawEnv) -> None:
    (claw_env.home / "config.toml").write_text('[models."test-model"]\ntoolCallFormat = "hermess"\n')
    done = run_claw(claw_env.env, "agent", "-m", "hi")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "toolCallFormat" in lines[0] and "'hermes'" in lines[0] and "hermess" in lines[0]
    assert "Traceback" not in done.stderr and claw_env.server.chat_requests == []
