"""The model's reasoning end to end: its own run stream, apart from the reply, stored on the assistant entry
as `thinking`, and never sent back to the model unless its `sendReasoning` is set."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from claw.client.local import LocalClient
from claw.vocab.run_event import RunEvent, Stream
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, thinking

MAIN = "agent:main:main"
REASONING = "The user greets me. SECRET-PLAN: answer warmly."


async def _events(client: LocalClient, message: str) -> list[RunEvent]:
    handle = await client.run(message)
    return [event async for event in client.events(handle.run_id)]


def _stream_text(events: list[RunEvent], stream: Stream) -> str:
    return "".join(e.data.get("delta", "") for e in events if e.stream == stream)


def _transcript(claw_env: ClawEnv) -> list[dict[str, Any]]:
    (path,) = (claw_env.home / "agents" / "main" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_reasoning_streams_apart_is_stored_apart_and_is_not_sent_back(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(thinking(REASONING, "Hello to you!"), text("Still here."))
    events = await _events(client, "hi")

    assert _stream_text(events, Stream.THINKING) == REASONING
    assert len([e for e in events if e.stream == Stream.THINKING]) > 1  # streamed, not one blob
    reply = _stream_text(events, Stream.ASSISTANT)
    assert reply == "Hello to you!" and "SECRET-PLAN" not in events[-1].data["text"]
    first_thought = min(e.seq for e in events if e.stream == Stream.THINKING)
    assert first_thought < min(e.seq for e in events if e.stream == Stream.ASSISTANT)

    (assistant,) = [e for e in _transcript(claw_env) if e.get("role") == "assistant"]
    assert assistant["content"] == "Hello to you!" and assistant["thinking"] == REASONING

    history = await client.call("chat.history", sessionKey=MAIN)
    assert [m.get("thinking") for m in history["messages"] if m.get("role") == "assistant"] == [REASONING]

    await _events(client, "again")
    sent = claw_env.server.chat_requests[-1].messages
    assert {"role": "assistant", "content": "Hello to you!"} in sent
    assert "SECRET-PLAN" not in json.dumps(sent)


async def test_vllm_style_reasoning_field_is_read_too(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(thinking("pondering", "Done.", field="reasoning"))
    events = await _events(client, "think")
    assert _stream_text(events, Stream.THINKING) == "pondering"
    assert _stream_text(events, Stream.ASSISTANT) == "Done."


async def test_send_reasoning_gives_the_model_its_earlier_reasoning_back(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    (claw_env.home / "config.toml").write_text('[models."test-model"]\nsendReasoning = true\n', encoding="utf-8")
    client = local_clients()
    claw_env.server.script(thinking(REASONING, "Hello to you!"), text("Still here."))
    await _events(client, "hi")
    await _events(client, "again")
    sent = claw_env.server.chat_requests[-1].messages
    assert {"role": "assistant", "content": "Hello to you!", "reasoning_content": REASONING} in sent


async def test_a_reply_with_no_reasoning_has_no_thinking_field(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(text("Plain."))
    events = await _events(client, "hi")
    assert not [e for e in events if e.stream == Stream.THINKING]
    (assistant,) = [e for e in _transcript(claw_env) if e.get("role") == "assistant"]
    assert "thinking" not in assistant
