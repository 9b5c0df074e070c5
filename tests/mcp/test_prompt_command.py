"""`/mcp:SERVER:PROMPT key=value …`: a server's prompt as a slash command (and `/mcp prompt …` still)."""

from __future__ import annotations

from claw.vocab.command_syntax import parse_command
from tests.gateway.conftest import collect, write_config
from tests.mcp.conftest import stdio_server
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw


def test_the_name_keeps_its_parts_and_their_case() -> None:
    assert parse_command("/mcp:basic:summarize topic=tides") == ("mcp:basic:summarize", "topic=tides")
    assert parse_command("/MCP:Files:GetNote x") == ("mcp:Files:GetNote", "x")
    assert parse_command("/a:b") is None and parse_command("/mcp::x") is None  # still messages
    assert parse_command("/Status:") == ("status", "")


def test_a_prompt_runs_from_claw_agent(claw_env: ClawEnv) -> None:
    write_config(claw_env.home, stdio_server("basic"))
    claw_env.server.script(text("summarised"))
    done = run_claw(claw_env.env, "agent", "-m", '/mcp:basic:summarize topic="the tides"')
    assert done.returncode == 0, done.stderr
    assert "summarised" in done.stdout
    sent = claw_env.server.chat_requests[0].body["messages"][-1]["content"]
    assert sent.startswith("[MCP prompt basic/summarize]") and "Please summarise the tides in one line." in sent


async def test_errors_of_the_prompt_command(claw_env: ClawEnv, local_clients) -> None:
    write_config(claw_env.home, stdio_server("basic"))
    client = local_clients()
    unknown_server = await client.run("/mcp:nope:summarize")
    assert "no MCP server 'nope'" in (unknown_server.reply or "")
    unknown_prompt = await client.run("/mcp:basic:nosuch")
    assert "prompt 'nosuch'" in (unknown_prompt.reply or "")
    short = await client.run("/mcp:basic")
    assert "usage: /mcp:SERVER:PROMPT" in (short.reply or "")
    other = await client.run("/stauts")  # other names: the unknown-command answer as before
    assert other.reply == "unknown command /stauts (did you mean /status?) — /help lists them"
    assert not claw_env.server.chat_requests  # none of these reached the model

    claw_env.server.script(text("done"))
    handle = await client.run("/mcp prompt basic summarize topic=tides")  # the long form still works
    await collect(client, handle.run_id)
    assert "Please summarise tides" in claw_env.server.chat_requests[0].body["messages"][-1]["content"]


def test_without_servers_an_mcp_name_is_an_unknown_command(claw_env: ClawEnv) -> None:
    done = run_claw(claw_env.env, "agent", "-m", "/mcp:basic:summarize")
    assert done.returncode != 0
    assert done.stderr.strip() == "claw: unknown command /mcp:basic:summarize — /help lists them"
    assert not claw_env.server.chat_requests
