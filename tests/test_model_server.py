"""The scripted model server, exercised with the real ``openai`` client (async and sync)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
import time

import openai
import pytest
from openai import AsyncOpenAI, OpenAI
from openai.types.chat import ChatCompletionChunk

from tests.support.fixtures import ClawEnv
from tests.support.model_server import (
    RecordedRequest,
    Reply,
    ScriptedModelServer,
    ToolCall,
    Usage,
    embed,
    error,
    hang,
    overflow,
    slow,
    text,
    tool_call,
    tool_calls,
)

HELLO = [{"role": "user", "content": "hello"}]
READ_TOOL = {"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}


def async_client(server: ScriptedModelServer, **options) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.base_url, api_key="test-key", max_retries=0, **options)


def sync_client(server: ScriptedModelServer, **options) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0, **options)


async def stream_chunks(client: AsyncOpenAI, **params) -> list[ChatCompletionChunk]:
    params = {"model": "test-model", "messages": HELLO, **params}
    stream = await client.chat.completions.create(stream=True, **params)
    return [chunk async for chunk in stream]


def content_of(chunks: list[ChatCompletionChunk]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def tool_calls_of(chunks: list[ChatCompletionChunk]) -> list[dict]:
    """Reassemble streamed tool calls the way an agent loop does: by index, concatenating arguments."""
    calls: dict[int, dict] = {}
    for chunk in chunks:
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            call = calls.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
            call["id"] = call["id"] or delta.id
            call["name"] += (delta.function and delta.function.name) or ""
            call["arguments"] += (delta.function and delta.function.arguments) or ""
    return [calls[i] for i in sorted(calls)]


# ----------------------------------------------------------------------------- chat streaming


async def test_streamed_text_reassembles_exactly_in_word_chunks(model_server: ScriptedModelServer) -> None:
    message = "Hello there,  world!\nSecond line with trailing space "
    model_server.script(text(message), text(message, chunk=3))
    async with async_client(model_server) as client:
        words = await stream_chunks(client)
        small = await stream_chunks(client)
    assert content_of(words) == message == content_of(small)
    assert [c.choices[0].delta.content for c in words[1:4]] == ["Hello ", "there,  ", "world!\n"]
    assert all(len(c.choices[0].delta.content or "") <= 3 for c in small if c.choices)
    assert words[0].choices[0].delta.role == "assistant"
    assert words[-1].choices[0].finish_reason == "stop"


def test_sync_client_streams_text(model_server: ScriptedModelServer) -> None:
    model_server.script(text("streamed to a sync client"))
    with sync_client(model_server) as client:
        stream = client.chat.completions.create(model="test-model", messages=HELLO, stream=True)
        assert content_of(list(stream)) == "streamed to a sync client"


async def test_several_tool_calls_in_one_response(model_server: ScriptedModelServer) -> None:
    model_server.script(tool_calls(
        [("read", {"path": "SOUL.md"}), ("exec", {"command": "ls -la", "timeout": 5}, "call_fixed")],
        text="Let me check.",
    ))
    async with async_client(model_server) as client:
        chunks = await stream_chunks(client, tools=[READ_TOOL])
    calls = tool_calls_of(chunks)
    assert content_of(chunks) == "Let me check."
    assert [c["name"] for c in calls] == ["read", "exec"]
    arguments = [json.loads(c["arguments"]) for c in calls]
    assert arguments == [{"path": "SOUL.md"}, {"command": "ls -la", "timeout": 5}]
    assert calls[0]["id"] and calls[1]["id"] == "call_fixed"
    deltas = [d for c in chunks if c.choices for d in c.choices[0].delta.tool_calls or []]
    first_call_deltas = [d for d in deltas if d.index == 0]
    assert first_call_deltas[0].function.name == "read" and first_call_deltas[0].id
    assert len(first_call_deltas) > 2, "arguments should arrive over several deltas"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


async def test_malformed_arguments_are_sent_verbatim(model_server: ScriptedModelServer) -> None:
    model_server.script(tool_call("write", '{"path": "a.md", "content": '))
    async with async_client(model_server) as client:
        calls = tool_calls_of(await stream_chunks(client))
    assert calls[0]["arguments"] == '{"path": "a.md", "content": '


async def test_usage_chunk_only_when_requested(model_server: ScriptedModelServer) -> None:
    model_server.script(text("counted", usage=Usage(12, 3)), text("not counted"))
    async with async_client(model_server) as client:
        counted = await stream_chunks(client, stream_options={"include_usage": True})
        uncounted = await stream_chunks(client)
    assert counted[-1].choices == []
    assert (counted[-1].usage.prompt_tokens, counted[-1].usage.completion_tokens) == (12, 3)
    assert counted[-1].usage.total_tokens == 15
    assert all(c.usage is None for c in counted[:-1])
    assert all(c.usage is None for c in uncounted)


async def test_non_stream_completion_has_text_tool_calls_and_usage(model_server: ScriptedModelServer) -> None:
    model_server.script(text("plain answer"), tool_calls([("read", {"path": "a"}), ("read", {"path": "b"})]))
    async with async_client(model_server) as client:
        answer = await client.chat.completions.create(model="test-model", messages=HELLO)
        calling = await client.chat.completions.create(model="test-model", messages=HELLO)
    assert answer.choices[0].message.content == "plain answer"
    assert answer.choices[0].finish_reason == "stop"
    assert answer.usage is not None and answer.usage.total_tokens > 0
    calls = calling.choices[0].message.tool_calls
    assert [json.loads(c.function.arguments)["path"] for c in calls] == ["a", "b"]
    assert len({c.id for c in calls}) == 2
    assert calling.choices[0].finish_reason == "tool_calls"


async def test_instant_mode_sends_the_same_stream() -> None:
    with ScriptedModelServer(instant=True) as server:
        server.script(tool_calls([ToolCall("read", '{"path": "x"}')], text="fast "))
        async with async_client(server) as client:
            chunks = await stream_chunks(client, stream_options={"include_usage": True})
        assert content_of(chunks) == "fast "
        assert tool_calls_of(chunks)[0]["arguments"] == '{"path": "x"}'
        assert chunks[-1].usage is not None
        record = server.last_request()
        assert record.received_at <= record.first_byte_at <= record.wait_finished()


# ----------------------------------------------------------------------------- errors


async def test_rate_limit_error(model_server: ScriptedModelServer) -> None:
    model_server.script(error(429, "Rate limit reached", code="rate_limit_exceeded",
                              headers={"retry-after": "0"}))
    async with async_client(model_server) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            await stream_chunks(client)
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "0"
    assert caught.value.body == {"message": "Rate limit reached", "type": "rate_limit_error",
                                 "param": None, "code": "rate_limit_exceeded"}


def test_server_error_raises_internal_server_error(model_server: ScriptedModelServer) -> None:
    model_server.script(error(500), error(503, "overloaded"))
    with sync_client(model_server) as client:
        for _ in range(2):
            with pytest.raises(openai.InternalServerError):
                client.chat.completions.create(model="test-model", messages=HELLO, stream=True)


async def test_overflow_raises_bad_request_with_context_message(model_server: ScriptedModelServer) -> None:
    model_server.script(overflow())
    async with async_client(model_server) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await stream_chunks(client)
    assert caught.value.code == "context_length_exceeded"
    assert "maximum context length" in caught.value.message


async def test_unknown_path_is_404(model_server: ScriptedModelServer) -> None:
    async with async_client(model_server) as client:
        with pytest.raises(openai.NotFoundError):
            await client.completions.create(model="test-model", prompt="hi")
    assert model_server.last_request().path == "/v1/completions"


async def test_failing_responder_answers_500(model_server: ScriptedModelServer) -> None:
    model_server.script(lambda request: 1 / 0)
    async with async_client(model_server) as client:
        with pytest.raises(openai.InternalServerError, match="ZeroDivisionError"):
            await stream_chunks(client)


# ----------------------------------------------------------------------------- hangs and aborts


async def test_hang_times_out_and_the_server_stays_healthy(model_server: ScriptedModelServer) -> None:
    model_server.script(hang("partial "), text("still alive"))
    async with async_client(model_server, timeout=0.3) as client:
        started = time.perf_counter()
        with pytest.raises(openai.APITimeoutError):
            await stream_chunks(client)
        assert time.perf_counter() - started < 5
        assert content_of(await stream_chunks(client)) == "still alive"
    hung = model_server.requests[0]
    await asyncio.to_thread(hung.wait_finished)


async def test_non_stream_hang_times_out(model_server: ScriptedModelServer) -> None:
    model_server.script(hang())
    async with async_client(model_server, timeout=0.3) as client:
        with pytest.raises(openai.APITimeoutError):
            await client.chat.completions.create(model="test-model", messages=HELLO)


async def test_cancelling_the_client_ends_a_slow_stream(model_server: ScriptedModelServer) -> None:
    model_server.script(slow("one two three four five six", delay_per_chunk=1.0))
    async with async_client(model_server) as client:
        task = asyncio.create_task(stream_chunks(client))
        (record,) = await model_server.wait_for_requests_async(1)
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.to_thread(record.wait_finished, 3.0)
        assert content_of(await stream_chunks(client)) == "ok"


async def test_slow_stream_spaces_its_chunks(model_server: ScriptedModelServer) -> None:
    model_server.script(slow("a b c d", delay_per_chunk=0.05))
    async with async_client(model_server) as client:
        started = time.perf_counter()
        assert content_of(await stream_chunks(client)) == "a b c d"
    assert time.perf_counter() - started >= 0.2


def test_stop_ends_a_hanging_stream_promptly() -> None:
    server = ScriptedModelServer().start()
    server.script(hang("waiting"))
    failures: list[BaseException] = []

    def consume() -> None:
        with sync_client(server, timeout=30) as client:
            try:
                list(client.chat.completions.create(model="test-model", messages=HELLO, stream=True))
            except openai.APIError as exc:
                failures.append(exc)

    consumer = threading.Thread(target=consume)
    consumer.start()
    server.wait_for_requests(1)
    started = time.perf_counter()
    server.stop()
    consumer.join(5)
    assert time.perf_counter() - started < 5
    assert not consumer.is_alive()
    assert failures and isinstance(failures[0], openai.APIConnectionError)


# ----------------------------------------------------------------------------- script and records


async def test_script_is_consumed_in_order_then_default(model_server: ScriptedModelServer) -> None:
    model_server.script(*(text(f"reply {n}") for n in range(20)))
    async with async_client(model_server) as client:
        replies = [content_of(await stream_chunks(client)) for _ in range(21)]
    assert replies == [f"reply {n}" for n in range(20)] + ["ok"]
    assert model_server.pending == 0


async def test_concurrent_requests_each_take_one_reply(model_server: ScriptedModelServer) -> None:
    model_server.script(*(text(f"reply {n}") for n in range(10)))
    async with async_client(model_server) as client:
        replies = await asyncio.gather(*(stream_chunks(client) for _ in range(10)))
    assert sorted(content_of(r) for r in replies) == sorted(f"reply {n}" for n in range(10))


async def test_default_responder_and_callable_entries_see_the_request() -> None:
    def echo(request: RecordedRequest) -> Reply:
        return text(f"echo: {request.messages[-1]['content']}")

    with ScriptedModelServer(default=echo) as server:
        server.script(lambda request: text(f"model was {request.model}"))
        async with async_client(server) as client:
            first = content_of(await stream_chunks(client, model="other-model"))
            second = content_of(await stream_chunks(client))
    assert (first, second) == ("model was other-model", "echo: hello")


async def test_requests_are_recorded_with_messages_tools_and_times(model_server: ScriptedModelServer) -> None:
    model_server.script(text("recorded"))
    async with async_client(model_server) as client:
        await stream_chunks(client, tools=[READ_TOOL], stream_options={"include_usage": True})
    record = model_server.last_request()
    assert (record.method, record.path, record.model, record.stream) == ("POST", "/v1/chat/completions",
                                                                          "test-model", True)
    assert record.messages == HELLO
    assert record.tool_names == ["read"]
    assert record.headers["authorization"] == "Bearer test-key"
    assert record.received_at <= record.first_byte_at <= record.wait_finished()
    assert model_server.chat_requests == [record]


def test_wait_for_requests_times_out(model_server: ScriptedModelServer) -> None:
    with pytest.raises(TimeoutError):
        model_server.wait_for_requests(1, timeout=0.1)


def test_reset_clears_script_and_records(model_server: ScriptedModelServer) -> None:
    model_server.script(text("forgotten"))
    with sync_client(model_server) as client:
        client.models.list()
        model_server.reset()
        assert model_server.requests == [] and model_server.pending == 0
        reply = client.chat.completions.create(model="test-model", messages=HELLO)
    assert reply.choices[0].message.content == "ok"


async def test_api_key_is_enforced_when_required() -> None:
    with ScriptedModelServer(require_api_key="sekrit") as server:
        server.script(text("let in"))
        async with async_client(server) as wrong:
            with pytest.raises(openai.AuthenticationError):
                await stream_chunks(wrong)
        async with AsyncOpenAI(base_url=server.base_url, api_key="sekrit", max_retries=0) as right:
            assert content_of(await stream_chunks(right)) == "let in"
        assert len(server.requests) == 2


# ----------------------------------------------------------------------------- other endpoints


def test_models_lists_served_names() -> None:
    with ScriptedModelServer(models=("alpha", "beta")) as server, sync_client(server) as client:
        assert [m.id for m in client.models.list()] == ["alpha", "beta"]


async def test_embeddings_deterministic_and_close_on_shared_words(model_server: ScriptedModelServer) -> None:
    texts = ["the cat sat on the mat", "a cat on a mat", "quantum chromodynamics lecture notes"]
    async with async_client(model_server) as client:
        packed = await client.embeddings.create(model="embed", input=texts)  # the client asks for base64
        floats = await client.embeddings.create(model="embed", input=texts, encoding_format="float")
        small = await client.embeddings.create(model="embed", input="cat", dimensions=16)
    vectors = [d.embedding for d in floats.data]
    assert vectors == [embed(t) for t in texts]
    assert [d.embedding for d in packed.data] == [pytest.approx(v, abs=1e-6) for v in vectors]
    assert len(small.data[0].embedding) == 16

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cosine(vectors[0], vectors[0]) == pytest.approx(1.0)
    assert cosine(vectors[0], vectors[1]) > 0.3 > cosine(vectors[0], vectors[2])


# ----------------------------------------------------------------------------- lifecycle and fixtures


def test_stop_joins_the_thread_and_closes_the_port() -> None:
    before = set(threading.enumerate())
    server = ScriptedModelServer().start()
    started = set(threading.enumerate()) - before
    port = server.port
    with socket.create_connection(("127.0.0.1", port), timeout=1):
        pass
    server.stop()
    assert started and not any(t.is_alive() for t in started)
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass
    server.stop()  # a second stop is harmless


def test_claw_env_serves_a_subprocess(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("hello from the fake model"))
    program = (
        "import openai\n"
        "stream = openai.OpenAI(max_retries=0).chat.completions.create(\n"
        "    model='test-model', messages=[{'role': 'user', 'content': 'hi'}], stream=True)\n"
        "print(''.join(c.choices[0].delta.content or '' for c in stream if c.choices))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], env=claw_env.env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello from the fake model"
    assert claw_env.env["CLAW_HOME"] == str(claw_env.home) and claw_env.home.is_dir()
    assert claw_env.env["CLAW_MODEL"] == "test-model"
    assert claw_env.server.last_request().headers["authorization"] == "Bearer test-key"
