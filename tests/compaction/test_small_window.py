"""Small-window mode: at 4,096 tokens the fixed prompt is short, the tools few and short, and `/context` says so."""

from __future__ import annotations

import json
from typing import Any

from claw.agent.small_window import CORE_TOOLS, TOOL_SEARCH, shorten_schema, small_tools
from claw.tools.base import ToolContext
from claw.tools.registry import ToolRegistry, builtin_tools
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw

FIXED = ("base", "SOUL.md", "AGENTS.md", "TOOLS.md", "IDENTITY.md", "USER.md", "memory", "skills", "tool schemas")


def _context(env: ClawEnv) -> dict[str, Any]:
    done = run_claw(env.env, "agent", "-m", "/context json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _init(env: ClawEnv, window: int) -> None:
    assert run_claw(env.env, "init").returncode == 0
    with (env.home / "config.toml").open("a") as f:
        f.write(f'\n[models."test-model"]\ncontextWindow = {window}\n')


def test_a_4096_window_gets_the_small_prompt_and_a_32k_one_the_full(claw_env: ClawEnv) -> None:
    _init(claw_env, 4096)
    small = _context(claw_env)
    fixed = sum(row["tokens"] for row in small["sections"] if row["name"] in FIXED)
    assert small["mode"] == "small" and fixed <= 1_200 * 1.15
    assert small["window"] - fixed - dict((r["name"], r["tokens"]) for r in small["sections"])["reserve"] >= 1_500
    done = run_claw(claw_env.env, "agent", "-m", "/context")
    assert "small-window mode" in done.stdout

    claw_env.server.script(text("hi"))
    assert run_claw(claw_env.env, "agent", "-m", "hello").returncode == 0
    sent = [t["function"]["name"] for t in claw_env.server.chat_requests[-1].body["tools"]]
    assert sent[: len(CORE_TOOLS)] == list(CORE_TOOLS) and sent[-1] == TOOL_SEARCH

    (claw_env.home / "config.toml").write_text((claw_env.home / "config.toml").read_text().replace("4096", "32000"))
    full = _context(claw_env)
    assert full["mode"] == "full"
    assert sum(row["tokens"] for row in full["sections"] if row["name"] in FIXED) > fixed * 2


def test_short_schemas_keep_what_a_call_needs() -> None:
    schemas = ToolRegistry(builtin_tools()).schemas()
    for schema in schemas:
        short = shorten_schema(schema)["function"]
        params = schema["function"]["parameters"]
        assert short["parameters"]["required"] == params.get("required", [])
        assert set(short["parameters"]["properties"]) == set(params["properties"])
        assert "description" not in json.dumps(short["parameters"])
        assert len(short["description"]) < len(schema["function"]["description"]) or "\n" not in short["description"]


async def test_tool_search_names_the_left_out_tools_and_gives_their_schema(tmp_path: Any) -> None:
    from claw.config import AgentSettings

    registry = ToolRegistry(builtin_tools())
    offered = small_tools(registry.schemas(), 1000, registry.schema_of(TOOL_SEARCH))
    assert [s["function"]["name"] for s in offered] == list(CORE_TOOLS)  # nothing left out: no search
    registry.register(_Extra())
    offered = small_tools(registry.schemas(), 1000, registry.schema_of(TOOL_SEARCH))  # too small for the extra
    assert [s["function"]["name"] for s in offered] == [*CORE_TOOLS, TOOL_SEARCH]
    assert "calendar" in offered[-1]["function"]["description"]
    ctx = ToolContext(tmp_path, "main", "k", "r", AgentSettings(), approvals=None)  # type: ignore[arg-type]
    found = await registry.call(TOOL_SEARCH, json.dumps({"name": "calendar"}), ctx)
    assert not found.is_error and json.loads(found.text)["name"] == "calendar"
    missing = await registry.call(TOOL_SEARCH, json.dumps({"name": "nothing-like-it"}), ctx)
    assert missing.is_error and "calendar" in missing.text


class _Extra:
    name = "calendar"
    description = "Read and change the user's calendar. Long explanation follows here, at length."
    parameters = {"type": "object", "properties": {"day": {"type": "string", "description": "ISO date"}}}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        raise NotImplementedError
