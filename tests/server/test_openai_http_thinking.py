"""The gateway's own OpenAI-compatible API answers with the reply only: the model's reasoning stays inside."""

from __future__ import annotations

from openai import AsyncOpenAI

from tests.server.conftest import TOKEN, Served
from tests.support.fixtures import ClawEnv
from tests.support.model_server import thinking

SECRET = "INNER-MONOLOGUE"


def _client(served: Served) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{served.http_url}/v1", api_key=TOKEN, max_retries=0, timeout=30)


async def test_streamed_and_whole_completions_carry_no_reasoning(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(thinking(f"{SECRET} weighing it", "Forty-two."), thinking(f"{SECRET} again", "Still 42."))
    question = [{"role": "user", "content": "the answer?"}]
    async with _client(served) as client:
        whole = await client.chat.completions.create(model="claw/main", messages=question)
        stream = await client.chat.completions.create(model="claw/main", messages=question, stream=True)
        chunks = [chunk async for chunk in stream]
    assert whole.choices[0].message.content == "Forty-two."
    assert SECRET not in whole.model_dump_json()
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Still 42."
    assert all(SECRET not in c.model_dump_json() for c in chunks)
