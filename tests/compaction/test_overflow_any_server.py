"""An overflow in any server's words runs the degradation chain and retries once; a message too big for the
window alone is refused before the call, in one line naming both sizes; the memory flush fits the window."""

from __future__ import annotations

import json

import pytest

from claw.agent.memory_flush import fit_messages
from claw.agent.tokens import estimate_message
from tests.compaction.conftest import Model, config, filler_turns, seed, write_config
from tests.gateway.conftest import collect
from tests.support.fixtures import ClawEnv
from tests.support.model_server import error, text
from tests.support.processes import run_claw

OVERFLOWS = {
    "llamacpp": (
        400,
        "request (4797 tokens) exceeds the available context size (4096 tokens), try increasing it",
        "exceed_context_size_error",
    ),  # fmt: skip
    "vllm": (400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", None),
    "vllm-new": (400, "The prompt (total length 5000) is longer than the maximum model length of 4096.", None),
    "ollama": (500, "the input length exceeds the context length", None),
    "openai": (400, "Your input exceeds the context window of this model.", "invalid_request_error"),
}


@pytest.mark.parametrize("server", sorted(OVERFLOWS))
async def test_each_servers_overflow_is_recovered_with_a_smaller_prompt(
    claw_env: ClawEnv, make_client, server: str
) -> None:
    write_config(claw_env, config(32_000, reserve=1000, keep=300))
    seed(claw_env, filler_turns(6))
    status, message, kind = OVERFLOWS[server]
    claw_env.server.script(error(status, message, type=kind))
    model = Model(window=32_000, replies=[text("Recovered.")])
    claw_env.server.default = model
    client = make_client()
    events = await collect(client, (await client.run("what now?")).run_id)

    assert events[-1].data["phase"] == "end" and events[-1].data["text"] == "Recovered."
    first, retried = claw_env.server.chat_requests[0], model.turns[0]
    assert len(json.dumps(retried.tools)) < len(json.dumps(first.tools)) / 2  # short schemas
    assert len(retried.messages[0]["content"]) < len(first.messages[0]["content"])  # the small rules


def test_a_message_too_big_for_the_window_is_refused_before_the_call(claw_env: ClawEnv) -> None:
    write_config(claw_env, config(4096, reserve=1000))
    done = run_claw(claw_env.env, "agent", "-m", "word " * 4000)
    assert done.returncode != 0
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "the message is ~5,0" in line and "too big for the model's 4,096-token context window" in line
    assert claw_env.server.chat_requests == []


def test_the_memory_flush_gets_only_what_fits() -> None:
    messages = [{"role": "system", "content": "rules"}]
    for n in range(40):
        messages.append({"role": "user", "content": f"question {n} " + "x" * 400})
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{n}", "type": "function", "function": {"name": "read", "arguments": "{}"}}]})  # fmt: skip
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": "y" * 400})
    fitted = fit_messages(messages, 1000)
    assert fitted[0]["role"] == "system" and sum(estimate_message(m) for m in fitted) <= 1000
    assert fitted[1]["role"] != "tool" and fitted[-1] == messages[-1]
