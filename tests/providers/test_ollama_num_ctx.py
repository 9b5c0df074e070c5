"""Ollama gets `options.num_ctx` sized to the budget's window in every chat request; other servers get nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from claw.providers.ollama_options import is_ollama, num_ctx_body
from tests.support.fixtures import ClawEnv
from tests.support.local_servers import LocalServer
from tests.support.model_server import ScriptedModelServer
from tests.support.turns import run_turn

KEY = "agent:main:main"


def test_num_ctx_is_never_above_what_the_server_reported() -> None:
    assert num_ctx_body(16_384) == {"options": {"num_ctx": 16_384}}
    assert num_ctx_body(32_000, 8192) == {"options": {"num_ctx": 8192}}
    assert is_ollama("ollama", None) and is_ollama("vllm", "ollama") and not is_ollama("vllm", "vllm")


def _point_at(env: ClawEnv, provider: str, server: ScriptedModelServer, extra: str = "") -> None:
    (env.home / "config.toml").write_text(
        f'[providers.{provider}]\nbaseUrl = "{server.base_url}"\n[memory]\nenabled = false\n{extra}', encoding="utf-8"
    )


async def _turn(env: ClawEnv, local_clients: Callable[[], Any], monkeypatch: pytest.MonkeyPatch, ref: str) -> None:
    monkeypatch.setenv("CLAW_MODEL", ref)
    await run_turn(local_clients(), KEY, "hello")


async def test_an_ollama_turn_sends_the_reported_window_as_num_ctx(
    claw_env: ClawEnv, local_clients: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedModelServer(models=("qwen3:8b",), local=LocalServer("ollama", 12_288)) as server:
        _point_at(claw_env, "ollama", server)
        await _turn(claw_env, local_clients, monkeypatch, "ollama/qwen3:8b")
        (chat,) = server.chat_requests
    assert chat.body["options"] == {"num_ctx": 12_288}
    assert chat.messages[-1]["content"] == "hello"


async def test_config_window_and_context_tokens_size_num_ctx(
    claw_env: ClawEnv, local_clients: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedModelServer(models=("qwen3:8b",), local=LocalServer("ollama", 12_288)) as server:
        extra = '[models."ollama/qwen3:8b"]\ncontextWindow = 20000\n[agents.defaults]\ncontextTokens = 16384\n'
        _point_at(claw_env, "ollama", server, extra)
        await _turn(claw_env, local_clients, monkeypatch, "ollama/qwen3:8b")
        (chat,) = server.chat_requests
    assert chat.body["options"] == {"num_ctx": 16_384}  # the window the budget uses: config, capped


async def test_a_vllm_server_gets_no_options(
    claw_env: ClawEnv, local_clients: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedModelServer(models=("qwen",), local=LocalServer("vllm", 40_960)) as server:
        _point_at(claw_env, "vllm", server)
        await _turn(claw_env, local_clients, monkeypatch, "vllm/qwen")
        (chat,) = server.chat_requests
    assert "options" not in chat.body


async def test_an_ollama_server_behind_another_provider_name_is_detected(
    claw_env: ClawEnv, local_clients: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedModelServer(models=("qwen3:8b",), local=LocalServer("ollama", 8192)) as server:
        _point_at(claw_env, "lmstudio", server)
        await _turn(claw_env, local_clients, monkeypatch, "lmstudio/qwen3:8b")
        chats = server.chat_requests
    # Every call carries it (the memory flush's too, when a prompt gets near the window).
    assert chats and chats[-1].messages[-1]["content"] == "hello"
    assert [chat.body["options"] for chat in chats] == [{"num_ctx": 8192}] * len(chats)
