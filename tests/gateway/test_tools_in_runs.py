"""Tools inside real runs: huge outputs are cut before the model sees them, exec asks first,
and a damaged transcript never stops the next turn."""

from __future__ import annotations

import json

from claw.client.local import LocalClient
from claw.tools.truncate import result_limit
from tests.gateway.conftest import collect, phases, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.tools.sandbox_support import running_with_arg, unique_sleep

FULL_EXEC = '[agents.defaults.tools.exec]\nsecurity = "full"\nask = "off"\n'


async def test_a_30_mb_tool_output_reaches_the_model_cut(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, FULL_EXEC)
    client: LocalClient = make_client()
    command = "head -c 30000000 /dev/zero | tr '\\0' 'x'; echo; echo THE-END"
    claw_env.server.script(tool_call("exec", {"command": command}), text("that was long"))
    events = await collect(client, (await client.run("make noise")).run_id)
    assert phases(events)[-1] == "end"

    sent = claw_env.server.chat_requests[1].body["messages"][-1]
    limit = result_limit(client.gateway.config.agent("main"))
    assert sent["role"] == "tool"
    assert len(sent["content"]) <= limit
    assert "truncated" in sent["content"] and "THE-END" in sent["content"]
    assert sent["content"].startswith("xxxx")


async def test_exec_is_denied_when_nobody_can_approve(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(tool_call("exec", {"command": "touch pwned"}), text("could not run it"))
    events = await collect(client, (await client.run("run it")).run_id)
    result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result.data["isError"] is True and "denied" in result.data["result"]
    assert not (client.gateway.workspace("main") / "pwned").exists()


async def test_exec_runs_after_the_user_approves(claw_env: ClawEnv, client: LocalClient) -> None:
    asked = []

    async def approve(request):
        asked.append(request)
        return "allow-once"

    client.gateway.approvals.set_approver(approve)
    claw_env.server.script(tool_call("exec", {"command": "echo approved > ok.txt"}), text("done"))
    events = await collect(client, (await client.run("run it")).run_id)
    assert phases(events)[-1] == "end"
    assert asked[0].command == "echo approved > ok.txt"
    assert asked[0].cwd == str(client.gateway.workspace("main").resolve())
    assert (client.gateway.workspace("main") / "ok.txt").read_text() == "approved\n"


async def test_a_torn_transcript_line_is_skipped_and_the_turn_goes_on(claw_env: ClawEnv, make_client) -> None:
    client: LocalClient = make_client()
    claw_env.server.script(text("first"))
    await collect(client, (await client.run("one")).run_id)
    session = (await client.call("sessions.list"))["sessions"][0]
    await client.close()

    path = claw_env.home / "agents" / "main" / "sessions" / f"{session['sessionId']}.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"role": "assistant", "content": "half a li')  # the crash happened mid-write

    client = make_client()
    claw_env.server.script(text("second"))
    events = await collect(client, (await client.run("two")).run_id)
    assert phases(events)[-1] == "end"
    sent = [m["content"] for m in claw_env.server.chat_requests[1].body["messages"][1:]]
    assert sent == ["one", "first", "two"]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["content"] == "second"


async def test_stop_kills_a_running_tool_within_a_second(claw_env: ClawEnv, make_client) -> None:
    import asyncio
    import time

    write_config(claw_env.home, FULL_EXEC)
    client: LocalClient = make_client()
    # Followed by its unique argument: in exec's sandbox, `$$` is the PID namespace's number, not the host's.
    sleeper = unique_sleep()
    claw_env.server.script(tool_call("exec", {"command": f"echo $$ > pid.txt; exec sleep {sleeper}"}))
    handle = await client.run("sleep a while")
    pid_file = client.gateway.workspace("main") / "pid.txt"
    async with asyncio.timeout(10):
        while not pid_file.exists() or not pid_file.read_text().strip():
            await asyncio.sleep(0.02)
    stopped = time.perf_counter()
    await client.run("/stop")
    events = await asyncio.wait_for(collect(client, handle.run_id), 2)
    assert time.perf_counter() - stopped < 1.0
    assert phases(events)[-1] == "aborted"
    result = [e for e in events if e.stream == "tool" and e.data["phase"] == "result"]
    assert result and result[-1].data["isError"] is True
    assert not running_with_arg(sleeper)
