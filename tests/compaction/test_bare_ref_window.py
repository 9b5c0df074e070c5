"""Any ref on a local server gets its window: a bare name on the `openai` provider with `OPENAI_BASE_URL`
pointing at llama.cpp, asked once per endpoint and model; a hosted API is never asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claw.agent.context import AssembledContext, PromptSection
from claw.agent.context_manager import ContextManager
from claw.config import AgentSettings, Config, ConfigFile
from claw.providers.failover import ModelRouter
from claw.tools.registry import ToolRegistry
from tests.support.fixtures import ClawEnv
from tests.support.local_servers import CHARS_PER_TOKEN, LocalServer
from tests.support.model_server import ScriptedModelServer


def _manager(providers: dict[str, object] | None = None) -> ContextManager:
    config = Config(ConfigFile.model_validate({"providers": providers or {}}), path=Path("config.toml"), environ={})
    return ContextManager(ModelRouter(config), ToolRegistry([]), {})


async def test_a_bare_ref_on_openai_base_url_gets_the_llamacpp_window(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedModelServer(models=("smollm2",), local=LocalServer("llamacpp", 4096)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        manager = _manager()
        await manager.discover_window(["smollm2"])
        assert manager.window(AgentSettings(), ["smollm2"]) == 4096
        assert manager.is_local("smollm2")
        # another ref naming the same server's model: the answer is the endpoint's, not asked again
        manager_ref = "openai/smollm2"
        await manager.discover_window([manager_ref])
        assert manager.window(AgentSettings(), [manager_ref]) == 4096
        assert [r.path for r in server.requests].count("/props") == 1


async def test_a_hosted_api_is_never_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    manager = _manager()
    await manager.discover_window(["gpt-4o"])
    assert manager.server_windows == {} and manager.window(AgentSettings(), ["gpt-4o"]) == 128_000


async def test_tokens_are_counted_at_the_servers_own_ratio(
    claw_env: ClawEnv, make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama.cpp's /tokenize measures the ratio once; /context counts at it and says so."""
    with ScriptedModelServer(models=("test-model",), local=LocalServer("llamacpp", 4096)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        client = make_client()
        report = await client.call("sessions.context", sessionKey="agent:main:main")
        assert report["tokenCounting"] == "tokenizer" and report["charsPerToken"] == CHARS_PER_TOKEN
        assert report["window"] == 4096 and report["mode"] == "small"
        assert [r.path for r in server.requests].count("/tokenize") == 1


def test_a_server_without_a_tokenizer_calibrates_from_usage() -> None:
    manager = _manager()
    prompt = AssembledContext([], sections=(PromptSection("base", 1000), PromptSection("reserve", 500)), window=4096)
    manager.calibrate_from_usage("local-model", prompt, 800)  # the server counted 800 where claw estimated 1,000
    ratio, how = manager.ratios["openai/local-model"]
    assert how == "usage" and ratio == pytest.approx(4 * 1000 / 800)
    manager.calibrate_from_usage("other-model", prompt, 300)  # far below: a cut prompt, not a tokenizer
    assert "openai/other-model" not in manager.ratios
