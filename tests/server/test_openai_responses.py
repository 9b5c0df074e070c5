"""`POST /v1/responses`, the Responses API, driven by the official `openai` client's `responses.create`."""

from __future__ import annotations

import openai
import pytest
from openai import AsyncOpenAI

from tests.server.conftest import TOKEN, Served
from tests.support.fixtures import ClawEnv
from tests.support.model_server import error, text


def _client(served: Served) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{served.http_url}/v1", api_key=TOKEN, max_retries=0, timeout=30)


async def test_a_response_runs_one_turn_of_the_agent(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("Forty-two."))
    async with _client(served) as client:
        raw = await client.responses.with_raw_response.create(model="claw/main", input="the answer?")
    reply = raw.parse()
    assert reply.object == "response" and reply.status == "completed" and reply.model == "claw/main"
    assert reply.output_text == "Forty-two."
    assert reply.output[0].type == "message" and reply.output[0].role == "assistant"
    assert reply.usage is not None and reply.usage.output_tokens > 0
    assert reply.usage.total_tokens == reply.usage.input_tokens + reply.usage.output_tokens
    assert claw_env.server.last_request().messages[-1] == {"role": "user", "content": "the answer?"}
    session = raw.headers["x-claw-session"]
    assert raw.headers["x-claw-run-id"] in reply.id
    entry = served.gateway.sessions("main").get(session)
    assert entry is not None and entry.message_count == 2


async def test_input_items_give_the_last_user_text(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("ok"))
    async with _client(served) as client:
        await client.responses.create(
            model="claw/main",
            instructions="ignored: the agent has its own",
            input=[
                {"role": "user", "content": "earlier"},
                {"role": "assistant", "content": "an earlier answer"},
                {"role": "user", "content": [{"type": "input_text", "text": t} for t in ("now ", "this")]},
            ],
        )
    assert claw_env.server.last_request().messages[-1] == {"role": "user", "content": "now this"}


async def test_streamed_events_arrive_in_the_documented_order(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("one two three"))
    async with _client(served) as client:
        stream = await client.responses.create(model="claw/main", input="count", stream=True)
        events = [e async for e in stream]
    kinds = [e.type for e in events]
    assert kinds[:4] == [
        "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
    ]  # fmt: skip
    assert kinds[-4:] == [
        "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed",
    ]  # fmt: skip
    assert set(kinds[4:-4]) == {"response.output_text.delta"}
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "one two three"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    completed = events[-1].response
    assert completed.output_text == "one two three" and completed.usage is not None
    assert events[0].response.id == completed.id


async def test_previous_response_id_continues_its_session(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("first answer"), text("second answer"))
    async with _client(served) as client:
        first = await client.responses.create(model="claw/main", input="first")
        second = await client.responses.create(model="claw/main", input="second", previous_response_id=first.id)
        assert second.previous_response_id == first.id and second.output_text == "second answer"
        with pytest.raises(openai.BadRequestError) as unknown:
            await client.responses.create(model="claw/main", input="x", previous_response_id="resp_nope")
    assert "resp_nope" in str(unknown.value) and "X-Claw-Session" in str(unknown.value)
    users = [m["content"] for m in claw_env.server.chat_requests[1].messages if m["role"] == "user"]
    assert users == ["first", "second"]  # the second turn saw the first as history


async def test_bad_requests_and_failed_runs_are_openai_errors(claw_env: ClawEnv, served: Served) -> None:
    async with _client(served) as client:
        with pytest.raises(openai.NotFoundError):
            await client.responses.create(model="gpt-4o", input="x")
        with pytest.raises(openai.BadRequestError) as empty:
            await client.responses.create(model="claw/main", input=[{"role": "assistant", "content": "hi"}])
        assert "no text" in str(empty.value)
        claw_env.server.script(error(400, "the model refused"))
        with pytest.raises(openai.APIStatusError) as failed:
            await client.responses.create(model="claw/main", input="x")
        assert failed.value.status_code == 502 and "the model refused" in str(failed.value)
        claw_env.server.script(error(400, "the model refused again"))
        stream = await client.responses.create(model="claw/main", input="y", stream=True)
        events = [e async for e in stream]
    assert events[-1].type == "response.failed" and "refused again" in events[-1].response.error.message


async def test_a_slash_command_answers_as_a_response(served: Served) -> None:
    async with _client(served) as client:
        reply = await client.responses.create(model="claw", input="/help")
    assert reply.status == "completed" and "/new" in reply.output_text
