"""`POST /v1/responses` on the gateway's port, driven by the official `openai` client's `responses.create`
(streamed and not), against the scripted model server."""

from __future__ import annotations

import openai
import pytest
from openai import AsyncOpenAI

from tests.server.conftest import TOKEN, Served
from tests.support.fixtures import ClawEnv
from tests.support.model_server import error, text


def _client(served: Served) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{served.http_url}/v1", api_key=TOKEN, max_retries=0, timeout=30)


async def test_a_response_not_streamed(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("Forty-two."))
    async with _client(served) as client:
        raw = await client.responses.with_raw_response.create(
            model="claw/main", input="the answer?", instructions="ignored: the agent has its own prompt"
        )
    reply = raw.parse()
    assert reply.object == "response" and reply.status == "completed" and reply.model == "claw/main"
    assert reply.output_text == "Forty-two." and reply.id.startswith("resp_")
    [item] = reply.output
    assert item.type == "message" and item.role == "assistant" and item.content[0].type == "output_text"
    assert reply.usage is not None and reply.usage.output_tokens > 0
    assert reply.usage.total_tokens == reply.usage.input_tokens + reply.usage.output_tokens
    assert claw_env.server.last_request().messages[-1] == {"role": "user", "content": "the answer?"}
    session = raw.headers["x-claw-session"]
    assert session.startswith("agent:main:http:")
    assert served.gateway.sessions("main").get(session).message_count == 2


async def test_a_streamed_response_and_previous_response_id_goes_on(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("one two three"), text("four"))
    async with _client(served) as client:
        stream = await client.responses.create(
            model="claw/main",
            input=[{"role": "user", "content": [{"type": "input_text", "text": "count"}]}],
            stream=True,
        )
        events = [event async for event in stream]
        kinds = [event.type for event in events]
        assert kinds[:4] == [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
        ]
        assert kinds[-4:] == [
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
        deltas = [event.delta for event in events if event.type == "response.output_text.delta"]
        assert "".join(deltas) == "one two three" and len(deltas) > 1
        assert [event.sequence_number for event in events] == list(range(len(events)))
        done = events[-1].response
        assert done.status == "completed" and done.output_text == "one two three" and done.usage.total_tokens > 0
        follow = await client.responses.create(model="claw/main", input="and then?", previous_response_id=done.id)
    assert follow.output_text == "four"
    said = [m["content"] for m in claw_env.server.chat_requests[-1].messages if m["role"] == "user"]
    assert said == ["count", "and then?"]  # the second turn went on in the first one's session


async def test_failures_are_openai_errors(claw_env: ClawEnv, served: Served) -> None:
    async with _client(served) as client:
        with pytest.raises(openai.NotFoundError, match="does not exist"):
            await client.responses.create(model="gpt-4o", input="hi")
        with pytest.raises(openai.BadRequestError, match="previous response"):
            await client.responses.create(model="claw/main", input="hi", previous_response_id="resp_nope")
        with pytest.raises(openai.BadRequestError, match="no user text"):
            await client.responses.create(model="claw/main", input=[{"role": "assistant", "content": "only me"}])
        claw_env.server.script(error(400, "model says no"))
        with pytest.raises(openai.APIStatusError, match="the run failed") as failed:
            await client.responses.create(model="claw/main", input="fail")
        assert failed.value.status_code == 502
        claw_env.server.script(error(400, "model says no"))
        stream = await client.responses.create(model="claw/main", input="fail again", stream=True)
        events = [event async for event in stream]
    assert events[-1].type == "response.failed" and "the run failed" in events[-1].response.error.message


async def test_a_slash_command_answers_as_the_response(served: Served) -> None:
    async with _client(served) as client:
        reply = await client.responses.create(model="claw/main", input="/help")
        stream = await client.responses.create(model="claw/main", input="/help", stream=True)
        streamed = [event async for event in stream]
    assert "/stop" in reply.output_text
    assert streamed[-1].type == "response.completed" and "/stop" in streamed[-1].response.output_text
