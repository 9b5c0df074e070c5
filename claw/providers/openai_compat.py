"""Any OpenAI-compatible endpoint through the official `openai` client.

`openai` is imported only when the first request is made: it costs ~0.7 s and
~60 MB, and nothing that does not call a model should pay that.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from claw.config import ProviderSettings
from claw.providers.base import ChatRequest, Finish, ModelDelta, ModelError, TextDelta, ToolCallDelta, Usage

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
_OVERFLOW_HINTS = (
    "context length",
    "context_length",
    "maximum context",
    "too many tokens",
    "request_too_large",
    "input is too long",
    "exceeds the maximum",
)


class OpenAICompatProvider:
    """Streams chat completions from one endpoint; the client (and its connection pool) is reused."""

    def __init__(self, name: str, settings: ProviderSettings, environ: dict[str, str] | None = None) -> None:
        self.name = name
        self._settings = settings
        self._env = os.environ if environ is None else environ
        self._client: AsyncOpenAI | None = None

    async def aclose(self) -> None:
        """Close the client's connection pool (a no-op if no request was ever made)."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    def _make_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI

        s = self._settings
        base_url = s.base_url or (None if self.name == "openai" else DEFAULT_BASE_URLS.get(self.name))
        api_key = s.api_key or (self._env.get(s.api_key_env) if s.api_key_env else None)
        if api_key is None:
            api_key = self._env.get("OPENAI_API_KEY" if self.name == "openai" else f"{self.name.upper()}_API_KEY")
        # Local servers ignore the key; a real endpoint answers 401, which is reported as an auth error.
        api_key = api_key or "not-needed"
        return AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=s.timeout_seconds, max_retries=s.max_retries)

    async def stream(self, request: ChatRequest) -> AsyncIterator[ModelDelta]:
        if self._client is None:
            self._client = self._make_client()
        import openai
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        params: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            params["tools"] = request.tools
        try:
            # `post` is what `chat.completions.create` ends in; create first walks the params through
            # its TypedDict transform, ~0.15 ms a message (~90 ms per model call at a full 128k-token
            # context, see bench/README.md), which changes nothing in our plain-JSON messages.
            stream = await self._client.post(
                "/chat/completions",
                body=params,
                cast_to=ChatCompletion,
                stream=True,
                stream_cls=openai.AsyncStream[ChatCompletionChunk],
            )
            async for chunk in stream:
                if chunk.usage is not None:
                    yield Usage(chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0)
                for choice in chunk.choices:
                    delta = choice.delta
                    if delta is not None and delta.content:
                        yield TextDelta(delta.content)
                    for call in (delta.tool_calls if delta is not None else None) or ():
                        fn = call.function
                        yield ToolCallDelta(
                            call.index, call.id, fn.name if fn else None, (fn.arguments or "") if fn else ""
                        )
                    if choice.finish_reason:
                        yield Finish(choice.finish_reason)
        except openai.APIError as exc:
            raise _classify(exc) from None


def _classify(exc: Exception) -> ModelError:
    import openai

    status = getattr(exc, "status_code", None)
    message = _message_of(exc)
    if isinstance(exc, openai.APITimeoutError):
        return ModelError("timeout", "model request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return ModelError("connection", f"cannot reach the model endpoint ({message})")
    lowered = message.lower()
    if status == 400 or status == 413:
        if any(hint in lowered for hint in _OVERFLOW_HINTS):
            return ModelError("overflow", message, status=status)
        return ModelError("bad_request", message, status=status)
    if status == 429:
        return ModelError("rate_limit", message, status=status)
    if status in (401, 403):
        return ModelError("auth", f"the endpoint refused the API key ({status}): {message}", status=status)
    if status is not None and status >= 500:
        return ModelError("server", message, status=status)
    return ModelError("other", message, status=status)


def _message_of(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if body.get("message"):
            return str(body["message"])
    return str(getattr(exc, "message", None) or exc)
