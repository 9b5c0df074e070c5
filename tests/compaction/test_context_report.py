"""`/context` and `sessions.context`: a token estimate per prompt section that adds up, against the window."""

from __future__ import annotations

import json
import re

from claw.agent.tokens import estimate_json, estimate_message, estimate_text
from tests.compaction.conftest import Model, config, write_config
from tests.gateway.conftest import collect
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

SYSTEM_ROWS_EXCLUDE = {"tool schemas", "history", "current message", "reserve"}


async def test_context_numbers_add_up_and_match_what_the_model_was_sent(claw_env: ClawEnv, make_client) -> None:
    workspace = claw_env.home / "workspace"
    (workspace / "AGENTS.md").write_text("Be brief.\n" * 50, encoding="utf-8")
    write_config(claw_env, config(50_000, reserve=3000))
    model = Model(window=50_000, replies=[text("Hello! " * 30)])
    claw_env.server.default = model
    client = make_client()
    await collect(client, (await client.run("hi there " * 20)).run_id)
    sent = model.turns[0]

    report = await client.call("sessions.context")
    rows = {row["name"]: row["tokens"] for row in report["sections"]}
    assert sum(rows.values()) == report["total"]
    assert report["total"] + report["free"] == report["window"] == 50_000
    assert report["windowSource"] == "config" and report["model"] == "test-model"
    assert list(rows)[:3] == ["base", "SOUL.md", "AGENTS.md"]
    assert rows["AGENTS.md"] >= estimate_text("Be brief.\n" * 50) and rows["reserve"] == 3000
    assert rows["current message"] == 0  # between turns
    # The system rows add up to the system prompt the model got (no memory recall here: memory is off).
    system_rows = sum(tokens for name, tokens in rows.items() if name not in SYSTEM_ROWS_EXCLUDE)
    assert system_rows == estimate_text(sent.messages[0]["content"])
    assert rows["tool schemas"] == estimate_json(sent.tools)
    reply = {"role": "assistant", "content": "Hello! " * 30}
    assert rows["history"] == sum(estimate_message(m) for m in sent.messages[1:]) + estimate_message(reply)

    rendered = (await client.run("/context")).reply
    assert rendered.startswith("Context for agent:main:main · model test-model")
    assert "Window 50,000 tokens (from config)" in rendered
    numbers = [int(m.group(1).replace(",", "")) for m in re.finditer(r"^  \S.*?\s([\d,]+)\s+[\d.]+%$", rendered, re.M)]
    assert numbers[:-2] == list(rows.values()) and numbers[-2] == report["total"] == sum(numbers[:-2])
    assert numbers[-1] == report["free"]
    for label in ("base prompt (claw rules)", "SOUL.md", "AGENTS.md", "tool schemas", "history", "reserve"):
        assert label in rendered
    as_json = json.loads((await client.run("/context json")).reply)
    assert as_json["total"] == report["total"]


async def test_unknown_models_get_a_conservative_window(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    report = await client.call("sessions.context")
    assert report["window"] == 32_000 and report["windowSource"] == "default"
    assert "unknown model: conservative default" in (await client.run("/context")).reply
    write_config(claw_env, "[agents.defaults]\ncontextTokens = 20000\n")
    capped = await make_client().call("sessions.context")
    assert capped["window"] == 20_000 and capped["windowSource"] == "config"
