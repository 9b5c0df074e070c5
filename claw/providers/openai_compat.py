"""Any OpenAI-compatible endpoint through the official `openai` client.

`openai` is imported only when the first request is made: it costs ~0.7 s and
~60 MB, and nothing that does not call a model should pay that.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import os
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from claw.config import ProviderSettings
from claw.providers.base import (
    ChatRequest,
    Finish,
    ModelDelta,
    ModelError,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from claw.providers.reasoning_switch import request_fields, switch_for
from claw.providers.request_body import RequestEncoder
from claw.redact import redact_url, redact_urls

if TYPE_CHECKING:
    from openai import AsyncOpenAI

log = logging.getLogger(__name__)

# Endpoints a bare provider name points at when config gives no base URL.
DEFAULT_BASE_URLS = {
    "ollama": "http://127.0.0.1:11434/v1",
    "vllm": "http://127.0.0.1:8000/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
    "lmstudio": "http://127.0.0.1:1234/v1",
    "openrouter": "https://openrouter.ai/api/v1",
}
KEYLESS_PROVIDERS = frozenset({"ollama", "vllm", "llamacpp", "lmstudio"})
"""Local servers that need no API key by default: an error about them never says a key is missing."""
_OVERFLOW_HINTS = (
    "context length",
    "context_length",
    "maximum context",
    "too many tokens",
    "request_too_large",
    "input is too long",
    "exceeds the maximum",
    "context size",  # llama.cpp: "request (4797 tokens) exceeds the available context size (4096 tokens)"
    "exceed_context_size",  # llama.cpp's error type
    "maximum model length",  # vLLM: "… is longer than the maximum model length of 4096"
    "context window",
    "prompt is too long",
)


class OpenAICompatProvider:
    """Streams chat completions from one endpoint; the client (and its connection pool) is reused."""

    def __init__(self, name: str, settings: ProviderSettings, environ: dict[str, str] | None = None) -> None:
        self.name = name
        self._settings = settings
        self._env = os.environ if environ is None else environ
        self._client: AsyncOpenAI | None = None
        self._encoder = RequestEncoder()

    async def aclose(self) -> None:
        """Close the client's connection pool (a no-op if no request was ever made)."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    def _make_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI

        s = self._settings
        base_url, api_key = endpoint(self.name, s, self._env)
        return AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=s.timeout_seconds, max_retries=s.max_retries)

    async def stream(self, request: ChatRequest) -> AsyncIterator[ModelDelta]:
        if self._client is None:
            # The provider's first call: importing openai (the process's first time) and loading the CA bundle
            # cost ~0.5 s of CPU. In a thread, so that a gateway goes on acknowledging channel messages meanwhile
            # instead of stalling them all at once.
            client = await asyncio.to_thread(self._make_client)
            if self._client is None:
                self._client = client
            else:  # another call made one meanwhile
                await client.close()
        import openai

        params: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            params["tools"] = request.tools
        params.update(request_fields(switch_for(self.name, self._settings), request.reasoning))  # /think
        if request.extra_body:
            params.update(request.extra_body)
        try:
            # `post` is what `chat.completions.create` ends in. create would first walk the params
            # through its TypedDict transform (~0.15 ms a message: ~90 ms per call at a full 128k-token
            # context, see bench/README.md) and encode the whole body again; our messages are plain
            # JSON already, and the encoder reuses the encoding of every message sent before.
            # Chunks come back as the plain dicts they are (`object`), not pydantic models.
            stream = await self._client.post(
                "/chat/completions",
                cast_to=object,
                stream=True,
                stream_cls=openai.AsyncStream[object],
                **self._body(params),
            )
            async for chunk in stream:
                for delta in chunk_deltas(chunk):
                    yield delta
        except openai.APIError as exc:
            raise _classify(exc, self._where(), self._missing_key()) from None

    def _where(self) -> str:
        """`provider x at http://***@host:port/v1`: the URL the client really uses (its own default, or
        `OPENAI_BASE_URL`, when config names none), without the credentials it may carry."""
        url = str(self._client.base_url).rstrip("/") if self._client is not None else "its endpoint"
        return f"provider {self.name} at {redact_url(url)}"

    def _missing_key(self) -> str | None:
        """What to say when no API key was found for this provider (None when one was, or none is needed)."""
        if self.name in KEYLESS_PROVIDERS or api_key(self.name, self._settings, self._env) is not None:
            return None
        variable = self._settings.api_key_env or default_key_env(self.name)
        needed = "" if self.name in ("openai", "openrouter") else " if the endpoint needs one"
        return f"no API key is set for {self.name}: set {variable}{needed}"

    def _body(self, params: dict[str, Any]) -> dict[str, Any]:
        if not _post_takes_content():  # an openai client from before raw request bodies
            return {"body": params}
        return {"content": self._encoder.encode(params)}


def default_key_env(name: str) -> str:
    """The variable a provider's API key is read from when config gives none: `OPENAI_API_KEY` or `<NAME>_API_KEY`."""
    return "OPENAI_API_KEY" if name == "openai" else f"{name.upper()}_API_KEY"


def endpoint(name: str, settings: ProviderSettings, environ: Mapping[str, str]) -> tuple[str | None, str]:
    """`(base_url, api_key)` of provider `name`, as every request to it uses them (`claw doctor` too).

    A None base URL leaves it to the `openai` client: `OPENAI_BASE_URL`, else api.openai.com."""
    base_url = settings.base_url or (None if name == "openai" else DEFAULT_BASE_URLS.get(name))
    # Local servers ignore the key; a real endpoint answers 401, which is reported as an auth error.
    return base_url, api_key(name, settings, environ) or "not-needed"


def api_key(name: str, settings: ProviderSettings, environ: Mapping[str, str]) -> str | None:
    """Provider `name`'s API key: config's `apiKey`, else its `apiKeyEnv` variable, else `default_key_env`'s."""
    key = settings.api_key or (environ.get(settings.api_key_env) if settings.api_key_env else None)
    if key is None:  # an `apiKeyEnv` variable set but empty does not fall back
        key = environ.get(default_key_env(name))
    return key or None


@functools.cache
def _post_takes_content() -> bool:
    from openai import AsyncOpenAI

    return "content" in inspect.signature(AsyncOpenAI.post).parameters


def chunk_deltas(chunk: object) -> list[ModelDelta]:
    """The deltas in one `chat.completion.chunk`, read leniently: a field of the wrong type is absent."""
    if not isinstance(chunk, dict):
        return []
    deltas: list[ModelDelta] = []
    usage = chunk.get("usage")
    if isinstance(usage, dict):
        deltas.append(_usage(usage))
    for choice in _dicts(chunk.get("choices")):
        delta = choice.get("delta")
        if isinstance(delta, dict):
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                deltas.append(ReasoningDelta(reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                deltas.append(TextDelta(content))
            for call in _dicts(delta.get("tool_calls")):
                fn = call.get("function")
                fn = fn if isinstance(fn, dict) else {}
                index = call.get("index")
                deltas.append(
                    ToolCallDelta(
                        index if isinstance(index, int) and not isinstance(index, bool) else None,
                        _str_or_none(call.get("id")),
                        _str_or_none(fn.get("name")),
                        _arguments(fn.get("arguments")),
                    )
                )
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            deltas.append(Finish(reason))
    return deltas


def _usage(usage: dict[str, Any]) -> Usage:
    """A `usage` object with the cache and reasoning details OpenAI sends (`prompt_tokens_details`,
    `completion_tokens_details`), and the spellings of servers that put them elsewhere (DeepSeek's
    `prompt_cache_hit_tokens`, Anthropic-style `cache_creation_input_tokens`)."""
    prompt = usage.get("prompt_tokens_details")
    prompt = prompt if isinstance(prompt, dict) else {}
    completion = usage.get("completion_tokens_details")
    completion = completion if isinstance(completion, dict) else {}
    cached = _int(prompt.get("cached_tokens")) or _int(usage.get("prompt_cache_hit_tokens"))
    written = _int(prompt.get("cache_write_tokens")) or _int(usage.get("cache_creation_input_tokens"))
    return Usage(
        _int(usage.get("prompt_tokens")),
        _int(usage.get("completion_tokens")),
        cached,
        written,
        _int(completion.get("reasoning_tokens")),
    )


def _arguments(value: object) -> str:
    """A tool call's arguments fragment: text as sent, or an object (some servers send one) as its JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else ""


def _dicts(value: object) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _classify(exc: Exception, where: str, missing_key: str | None) -> ModelError:
    """`exc` as a `ModelError` whose message names `where` the request went (`_where`) for the errors
    that are about the endpoint, and says `missing_key` when no key was found (the likely cause of a 401,
    and worth knowing before the next try when the endpoint cannot be reached at all)."""
    import openai

    status = getattr(exc, "status_code", None)
    message = _message_of(exc)
    key_note = f"; {missing_key}" if missing_key else ""
    if isinstance(exc, openai.APITimeoutError):
        return ModelError("timeout", f"model request to {where} timed out")
    if isinstance(exc, openai.APIConnectionError):
        return ModelError("connection", f"cannot reach {where} ({_cause(exc)}){key_note}")
    lowered = f"{message} {_error_type(exc)}".lower()
    if status in (400, 413, 500) and any(hint in lowered for hint in _OVERFLOW_HINTS):  # some servers say 500
        return ModelError("overflow", message, status=status)
    if status == 400 or status == 413:
        return ModelError("bad_request", message, status=status)
    if status == 429:
        return ModelError("rate_limit", message, status=status)
    if status in (401, 403) and missing_key:
        return ModelError("auth", f"{where} refused the request ({status}: {message}): {missing_key}", status=status)
    if status in (401, 403):
        return ModelError("auth", f"{where} refused the API key ({status}): {message}", status=status)
    if status is not None and status >= 500:
        return ModelError("server", message, status=status)
    return ModelError("other", message, status=status)


def _error_type(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    inner = body.get("error", body) if isinstance(body, dict) else None
    return str(inner.get("type") or "") if isinstance(inner, dict) else ""


def _cause(exc: Exception) -> str:
    """What lies under openai's bare "Connection error.": httpx's reason ("All connection attempts failed",
    "[Errno -2] Name or service not known"), any credentials in it masked."""
    cause: BaseException = exc
    while cause.__cause__ is not None:
        cause = cause.__cause__
    return redact_urls(str(cause) or _message_of(exc))


def _message_of(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if body.get("message"):
            return str(body["message"])
    return str(getattr(exc, "message", None) or exc)
