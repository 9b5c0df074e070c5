"""A reasoning model's `<think>` block in its summary stays out of the compaction: the summary the next
turns carry is the reply alone (claw/providers/text_tools/stream.py `reply_only`)."""

from __future__ import annotations

from tests.compaction.conftest import (
    KEY,
    SUMMARY_MARK,
    Model,
    config,
    filler_turns,
    seed,
    tool_exchange,
    transcript_entries,
    write_config,
)
from tests.gateway.conftest import collect
from tests.support.fixtures import ClawEnv
from tests.support.model_server import RecordedRequest, Reply, overflow, text


class ThinkingModel(Model):
    def __call__(self, request: RecordedRequest) -> Reply:
        if request.messages and str(request.messages[0].get("content", "")).startswith(SUMMARY_MARK):
            self.summaries.append(request)
            return text("<think>The user wants a summary; keep it short.</think>SUMMARY: filler topics.")
        return super().__call__(request)


async def test_a_think_block_in_the_summary_is_left_out(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, config(100_000, reserve=1000, keep=300))
    seed(claw_env, filler_turns(6) + tool_exchange("call_1", result_chars=800), key=KEY)
    claw_env.server.script(overflow())
    model = ThinkingModel(window=100_000, replies=[text("Recovered.")])
    claw_env.server.default = model
    client = make_client()
    await collect(client, (await client.run("what now?")).run_id)

    assert len(model.summaries) == 1 and len(model.turns) == 1
    carried = model.turns[0].messages[1]["content"]
    assert "SUMMARY: filler topics." in carried
    assert "<think>" not in carried and "keep it short" not in carried
    (compaction,) = [e for e in transcript_entries(claw_env) if e.get("type") == "compaction"]
    assert "<think>" not in str(compaction)
