"""`/think off|low|high`: the session's reasoning level, sent in each model request the way its server takes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from claw.client.local import LocalClient
from tests.gateway.conftest import collect, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

SWITCH_FIELDS = ("reasoning_effort", "reasoning", "chat_template_kwargs", "think")


async def _turn(client: LocalClient, message: str = "hi") -> None:
    await collect(client, (await client.run(message)).run_id)


def _last_body(claw_env: ClawEnv) -> dict[str, Any]:
    return claw_env.server.chat_requests[-1].body


async def test_think_high_puts_reasoning_effort_in_every_request_of_the_session(
    claw_env: ClawEnv, client: LocalClient
) -> None:
    await _turn(client)
    assert not set(SWITCH_FIELDS) & set(_last_body(claw_env))  # nothing is sent until the user asks

    shown = (await client.run("/think")).reply
    assert "model's default" in shown and "not set" in shown

    answer = await client.run("/think high")
    assert answer.error is None and "high" in answer.reply and 'reasoning_effort="high"' in answer.reply
    claw_env.server.script(text("one"), text("two"))
    await _turn(client)
    await _turn(client, "and again")
    assert [r.body.get("reasoning_effort") for r in claw_env.server.chat_requests[-2:]] == ["high", "high"]
    assert "high [this session]" in (await client.run("/think")).reply

    await client.run("/think low")
    await _turn(client)
    assert _last_body(claw_env)["reasoning_effort"] == "low"

    off = (await client.run("/think off")).reply
    assert "no reasoning field" in off  # OpenAI has no off every model takes: the model's default
    await _turn(client)
    assert "reasoning_effort" not in _last_body(claw_env)

    await client.run("/think high")
    assert "default" in (await client.run("/think default")).reply
    await _turn(client)
    assert "reasoning_effort" not in _last_body(claw_env)


async def test_the_level_is_per_session(claw_env: ClawEnv, client: LocalClient) -> None:
    await client.run("/think high", session_key="agent:main:main")
    await collect(client, (await client.run("elsewhere", session_key="agent:main:other")).run_id)
    assert "reasoning_effort" not in _last_body(claw_env)


async def test_a_wrong_level_is_a_usage_error_that_changes_nothing(claw_env: ClawEnv, client: LocalClient) -> None:
    bad = await client.run("/think hard")
    assert bad.error == "usage" and "off, low, high" in bad.reply and "'hard'" in bad.reply
    await _turn(client)
    assert "reasoning_effort" not in _last_body(claw_env)


@pytest.mark.parametrize(
    ("provider", "level", "expected"),
    [
        ("vllm", "off", {"chat_template_kwargs": {"enable_thinking": False}}),
        ("vllm", "high", {"reasoning_effort": "high", "chat_template_kwargs": {"enable_thinking": True}}),
        ("llamacpp", "off", {"chat_template_kwargs": {"enable_thinking": False}}),
        ("ollama", "off", {"reasoning_effort": "none"}),
        ("ollama", "low", {"reasoning_effort": "low"}),
        ("openrouter", "off", {"reasoning": {"effort": "none"}}),
        ("openrouter", "high", {"reasoning": {"effort": "high"}}),
    ],
)
async def test_local_servers_get_their_own_switch(
    claw_env: ClawEnv,
    make_client: Callable[[], LocalClient],
    monkeypatch: pytest.MonkeyPatch,
    provider: str,
    level: str,
    expected: dict[str, Any],
) -> None:
    write_config(claw_env.home, f'[providers.{provider}]\nbaseUrl = "{claw_env.server.base_url}"\n')
    monkeypatch.setenv("CLAW_MODEL", f"{provider}/qwen3")
    client = make_client()
    assert (await client.run(f"/think {level}")).error is None
    await _turn(client)
    body = _last_body(claw_env)
    assert body["model"] == "qwen3"
    assert {name: body[name] for name in SWITCH_FIELDS if name in body} == expected


async def test_a_server_without_a_switch_is_told_plainly(
    claw_env: ClawEnv, make_client: Callable[[], LocalClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(claw_env.home, f'[providers.lmstudio]\nbaseUrl = "{claw_env.server.base_url}"\n')
    monkeypatch.setenv("CLAW_MODEL", "lmstudio/qwen3")
    client = make_client()
    refused = await client.run("/think high")
    assert refused.error == "failed"
    assert "lmstudio has no reasoning switch" in refused.reply and "reasoningSwitch" in refused.reply
    assert "no reasoning switch" in (await client.run("/think")).reply
    await _turn(client)
    assert not set(SWITCH_FIELDS) & set(_last_body(claw_env))


async def test_a_provider_can_name_its_switch(
    claw_env: ClawEnv, make_client: Callable[[], LocalClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(
        claw_env.home,
        f'[providers.lmstudio]\nbaseUrl = "{claw_env.server.base_url}"\nreasoningSwitch = "template"\n',
    )
    monkeypatch.setenv("CLAW_MODEL", "lmstudio/qwen3")
    client = make_client()
    await client.run("/think off")
    await _turn(client)
    assert _last_body(claw_env)["chat_template_kwargs"] == {"enable_thinking": False}
