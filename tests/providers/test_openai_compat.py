"""OpenAICompatProvider against the scripted server, through the real openai client."""

from __future__ import annotations

import pytest

from claw.config import ProviderSettings
from claw.providers import openai_compat
from claw.providers.base import ChatRequest, Finish, ModelError, TextDelta, ToolCallDelta, Usage
from claw.providers.openai_compat import OpenAICompatProvider, chunk_deltas
from tests.support.model_server import ScriptedModelServer, error, text, tool_call

TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]


async def _collect(provider: OpenAICompatProvider, messages: list[dict]) -> list:
    return [d async for d in provider.stream(ChatRequest("test-model", messages, TOOLS))]


@pytest.fixture
def provider(model_server: ScriptedModelServer):
    return OpenAICompatProvider("local", ProviderSettings(base_url=model_server.base_url, api_key="k"))


@pytest.mark.parametrize("raw_body", [True, False], ids=["encoded-body", "older-openai-client"])
async def test_a_streamed_reply_and_the_request_as_sent(
    provider: OpenAICompatProvider, model_server: ScriptedModelServer, monkeypatch, raw_body: bool
) -> None:
    monkeypatch.setattr(openai_compat, "_post_takes_content", lambda: raw_body)
    model_server.script(text("Hello there", chunk=3), tool_call("read", {"path": "a.md"}, id="call_1"))
    history = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "héllo"}]
    deltas = await _collect(provider, history)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "Hello there"
    assert [d for d in deltas if isinstance(d, Finish)] == [Finish("stop")]
    assert any(isinstance(d, Usage) and d.input_tokens > 0 for d in deltas)

    later = [*history, {"role": "assistant", "content": "Hello there"}, {"role": "user", "content": "read a.md"}]
    deltas = await _collect(provider, later)
    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert calls[0].id == "call_1" and calls[0].name == "read"
    assert "".join(c.arguments for c in calls) == '{"path": "a.md"}'

    first, second = model_server.chat_requests
    assert second.messages == later and second.tools == TOOLS
    assert second.body["stream"] is True and second.body["stream_options"] == {"include_usage": True}
    assert second.headers["content-type"] == "application/json"
    assert first.messages == history
    await provider.aclose()


async def test_an_http_error_becomes_a_model_error(
    provider: OpenAICompatProvider, model_server: ScriptedModelServer
) -> None:
    model_server.script(error(429, "Rate limit reached", headers={"retry-after": "0"}))
    with pytest.raises(ModelError) as caught:
        await _collect(provider, [{"role": "user", "content": "hi"}])
    assert caught.value.kind == "rate_limit" and "Rate limit" in caught.value.message
    await provider.aclose()


def test_chunks_are_read_leniently() -> None:
    assert chunk_deltas(None) == [] and chunk_deltas([1, 2]) == []
    assert chunk_deltas({"choices": None, "usage": None}) == []
    assert chunk_deltas({"choices": [None, {"delta": None, "finish_reason": None}]}) == []
    odd = {
        "choices": [
            {
                "delta": {
                    "content": 7,
                    "tool_calls": [{"index": None, "id": 3, "function": "read"}, "junk"],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": None, "completion_tokens": 4},
    }
    assert chunk_deltas(odd) == [Usage(0, 4), ToolCallDelta(None, None, None, ""), Finish("tool_calls")]
