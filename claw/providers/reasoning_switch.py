"""`/think off|low|high`: the reasoning switch of each kind of server, spelled as its docs spell it.

There is no one OpenAI-compatible field for it, so each server kind gets its own (`SWITCHES`):

- `effort` (OpenAI): `reasoning_effort` "low" / "high". There is no off that every model takes, so
  `off` sends nothing (the model's default).
- `openrouter`: its `reasoning` object, `{"effort": "low" | "high" | "none"}`.
- `ollama` (its `/v1` endpoint): `reasoning_effort` "low" / "high", and "none" to turn thinking off.
  Ollama's native `think` field is ignored on `/v1`, so it is not sent.
- `template` (vLLM, llama.cpp server): `chat_template_kwargs: {"enable_thinking": false}` for off, the
  chat-template switch of Qwen3 and its kin; low / high turn it on and send `reasoning_effort` too
  (vLLM passes it to models that take it, e.g. gpt-oss).
- `none`: the server has no switch claw knows (LM Studio, a custom provider): `/think` says so.

A provider's `reasoningSwitch` picks one; `auto` (the default) goes by the provider's name. The session's
level reaches the request through a context variable, as the usage ledger's call scope does
(claw/providers/metering.py): the runner sets it for a run, the router reads it into each `ChatRequest`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from claw.config import ProviderSettings

ThinkLevel = Literal["off", "low", "high"]
LEVELS: tuple[ThinkLevel, ...] = ("off", "low", "high")
Switch = Literal["effort", "openrouter", "ollama", "template", "none"]
SWITCHES: tuple[Switch, ...] = ("effort", "openrouter", "ollama", "template", "none")

_BY_PROVIDER: dict[str, Switch] = {
    "openai": "effort",
    "openrouter": "openrouter",
    "ollama": "ollama",
    "vllm": "template",
    "llamacpp": "template",
}

_level: ContextVar[ThinkLevel | None] = ContextVar("claw_think_level", default=None)


def think_level(value: object) -> ThinkLevel | None:
    """`value` as a level (a session's stored `think`), None when it is not one."""
    return value if value in LEVELS else None


@contextmanager
def thinking_at(level: ThinkLevel | None) -> Iterator[None]:
    """Model calls made inside ask for `level` (None: send no switch, the server's default)."""
    token = _level.set(level)
    try:
        yield
    finally:
        _level.reset(token)


def current_level() -> ThinkLevel | None:
    return _level.get()


def switch_for(provider: str, settings: ProviderSettings) -> Switch:
    """The provider's switch: its `reasoningSwitch`, else the one its name implies (`none` when unknown)."""
    if settings.reasoning_switch != "auto":
        return settings.reasoning_switch
    return _BY_PROVIDER.get(provider, "none")


def request_fields(switch: Switch, level: ThinkLevel | None) -> dict[str, Any]:
    """The request-body fields that ask a `switch` server for `level` ({} for no level, or no switch)."""
    if level is None or switch == "none":
        return {}
    if switch == "effort":
        return {} if level == "off" else {"reasoning_effort": level}
    if switch == "openrouter":
        return {"reasoning": {"effort": "none" if level == "off" else level}}
    if switch == "ollama":
        return {"reasoning_effort": "none" if level == "off" else level}
    if level == "off":
        return {"chat_template_kwargs": {"enable_thinking": False}}
    return {"reasoning_effort": level, "chat_template_kwargs": {"enable_thinking": True}}
