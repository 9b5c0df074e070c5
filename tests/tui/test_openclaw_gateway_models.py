"""`claw chat --url` attached to OpenClaw's own gateway learns the agent's model from `agents.list`: that
gateway has no `agents.get` (claw's), and the console would otherwise say "no model configured" and refuse
to send. The answers below are what OpenClaw 2026.9.6's gateway sent (`openclaw gateway call agents.list`,
trimmed), and its refusal of a method it does not have."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from claw.errors import UsageError
from claw.tui.session_loader import SessionLoader

OPENCLAW_AGENTS = {
    "defaultId": "main",
    "mainKey": "main",
    "scope": "per-sender",
    "agents": [
        {"id": "main", "workspace": "/home/u/.openclaw/workspace", "thinkingDefault": "off",
         "model": {"primary": "scripted/test-model"}, "defaultPermissionMode": "full"},
        {"id": "ops", "model": {"primary": "openai/gpt-4o", "fallbacks": ["ollama/qwen3:8b"]}},
    ],
}  # fmt: skip


class OpenClawGateway:
    async def call(self, method: str, **params: Any) -> Any:
        if method == "agents.list":
            return OPENCLAW_AGENTS
        raise UsageError(f"unknown method: {method}")


async def test_the_model_chain_comes_from_agents_list_when_agents_get_is_missing() -> None:
    for agent_id, chain in (("main", ["scripted/test-model"]), ("ops", ["openai/gpt-4o", "ollama/qwen3:8b"])):
        loader = SessionLoader(SimpleNamespace(agent_id=agent_id, api=OpenClawGateway()))  # type: ignore[arg-type]
        assert await loader.optional("agents.get", None, agentId=agent_id) is None
        assert await loader._listed_models() == chain
    unknown = SessionLoader(SimpleNamespace(agent_id="nobody", api=OpenClawGateway()))  # type: ignore[arg-type]
    assert await unknown._listed_models() == []
