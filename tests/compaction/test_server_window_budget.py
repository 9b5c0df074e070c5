"""The prompt budget takes a local server's reported window, asked once; config's contextWindow still wins."""

from __future__ import annotations

from pathlib import Path

from claw.agent.context_manager import ContextManager
from claw.config import AgentSettings, Config, ConfigFile, ModelSettings
from claw.providers.failover import ModelRouter
from claw.tools.registry import ToolRegistry
from tests.support.local_servers import LocalServer
from tests.support.model_server import ScriptedModelServer


def _manager(base_url: str, models: dict[str, ModelSettings] | None = None) -> ContextManager:
    file = ConfigFile.model_validate({"providers": {"ollama": {"baseUrl": base_url}}})
    config = Config(file, path=Path("config.toml"), environ={})
    return ContextManager(ModelRouter(config), ToolRegistry([]), models or {})


async def test_the_reported_window_is_used_and_asked_once() -> None:
    with ScriptedModelServer(models=("qwen3:8b",), local=LocalServer("ollama", 8192)) as server:
        manager = _manager(server.base_url)
        chain = ["ollama/qwen3:8b"]
        assert manager.window(AgentSettings(), chain) == 32_000  # not asked yet: the default
        await manager.discover_window(chain)
        await manager.discover_window(chain)
        assert manager.window(AgentSettings(), chain) == 8192
        assert [r.path for r in server.requests].count("/api/show") == 1
        capped = AgentSettings.model_validate({"contextTokens": 4096})
        assert manager.window(capped, chain) == 4096


async def test_config_wins_and_is_never_probed() -> None:
    with ScriptedModelServer(models=("qwen3:8b",), local=LocalServer("ollama", 8192)) as server:
        manager = _manager(server.base_url, {"ollama/qwen3:8b": ModelSettings(contextWindow=65_536)})
        await manager.discover_window(["ollama/qwen3:8b"])
        assert manager.window(AgentSettings(), ["ollama/qwen3:8b"]) == 65_536
        assert server.requests == []


def test_context_report_names_the_server_as_the_source() -> None:
    from claw.agent.context import AssembledContext
    from claw.agent.context_report import context_report, render_report

    report = context_report(AssembledContext([], window=8192), session_key="k", model="m", window_source="server")
    assert "Window 8,192 tokens (reported by the server)" in render_report(report)
