"""What a child may see and do: AGENTS.md only, no memory, only its skills, no session tools, limited depth."""

from __future__ import annotations

import json
import re
from pathlib import Path

from claw.client.local import LocalClient
from tests.gateway.conftest import collect, write_config
from tests.subagents.conftest import Roles, settle
from tests.support.fixtures import ClawEnv
from tests.support.model_server import RecordedRequest, Reply, text, tool_call


def tool_results(request: RecordedRequest) -> list[str]:
    return [m["content"] for m in request.messages if m["role"] == "tool"]


def write_skill(workspace: Path, name: str) -> None:
    folder = workspace / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\nDo {name}.\n")


async def test_a_child_sees_the_task_agents_md_and_its_skills_only(
    claw_env: ClawEnv, workspace: Path, client: LocalClient
) -> None:
    (workspace / "AGENTS.md").write_text("Rule: always cite sources.\n")
    (workspace / "MEMORY.md").write_text("The user's cat is called Miso.\n")
    write_skill(workspace, "alpha")
    write_skill(workspace, "beta")
    spawn = {"task": "Summarise the cat facts.", "skills": ["alpha"]}
    claw_env.server.default = roles = Roles(parent=[tool_call("sessions_spawn", spawn), text("started")])
    handle = await client.run("what is my cat called?")
    await collect(client, handle.run_id)
    await settle(client, handle.run_id)

    parent, child = roles.seen["parent"][0], roles.seen["child"][0]
    assert child.messages[-1] == {"role": "user", "content": "Summarise the cat facts."}
    assert len(child.messages) == 2  # the system prompt and the task: none of the parent's conversation
    prompt = child.messages[0]["content"]
    assert "Rule: always cite sources." in prompt and "## AGENTS.md" in prompt
    assert "You are Testy" not in prompt and "## SOUL.md" not in prompt  # SOUL.md is the parent's alone
    assert "You are Testy" in parent.messages[0]["content"]
    assert "Memory Recall" in parent.messages[0]["content"] and "Memory Recall" not in prompt
    assert "<name>alpha</name>" in prompt and "beta" not in prompt
    assert "<name>beta</name>" in parent.messages[0]["content"]
    assert "## Subagent" in prompt and "session agent:main:main" in prompt
    for name in ("sessions_spawn", "sessions_list", "sessions_history", "sessions_send", "memory_search"):
        assert name in parent.tool_names and name not in child.tool_names
    assert {"read", "write", "edit", "exec"} <= set(child.tool_names)


async def test_a_subagent_cannot_spawn_by_default(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Delegate further."}), text("started")],
        child=[tool_call("sessions_spawn", {"task": "Go deeper."}), text("I had to do it myself.")],
    )
    handle = await client.run("go")
    await collect(client, handle.run_id)
    state = await settle(client, handle.run_id)

    assert len(state["children"]) == 1  # no grandchild
    [refused] = tool_results(roles.seen["child"][1])
    assert refused.startswith("sessions_spawn is not available here: a subagent cannot spawn subagents")
    assert "depth 1" in refused and "maxDepth is 1" in refused
    keys = [r["key"] for r in (await client.call("sessions.list"))["sessions"]]
    assert len([k for k in keys if ":subagent:" in k]) == 1


async def test_max_depth_two_allows_an_orchestrator_and_its_workers_report_to_it(
    claw_env: ClawEnv, make_client
) -> None:
    write_config(claw_env.home, "[agents.defaults.subagents]\nmaxDepth = 2\n")
    client: LocalClient = make_client()
    seen: dict[str, list[RecordedRequest]] = {"orchestrator": [], "worker": []}

    def child(request: RecordedRequest) -> Reply:
        depth = re.search(r"\(depth (\d)\)", request.messages[0]["content"])
        assert depth is not None
        if depth.group(1) == "2":
            seen["worker"].append(request)
            if len(seen["worker"]) == 1:
                return tool_call("sessions_spawn", {"task": "Even deeper."})
            return text("worker result: 7")
        seen["orchestrator"].append(request)
        calls = len(seen["orchestrator"])
        if calls == 1:
            return tool_call("sessions_spawn", {"task": "Compute 7.", "label": "worker"})
        if "worker result: 7" in request.messages[-1]["content"]:
            return text("orchestrator relays: 7")
        return text("orchestrator waiting")

    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Organise.", "label": "boss"}), text("started")],
        child_default=child,
    )
    handle = await client.run("go")
    await collect(client, handle.run_id)
    state = await settle(client, handle.run_id, timeout=60)

    assert [c["depth"] for c in state["children"]] == [1, 2]
    boss, worker = state["children"]
    assert worker["parentSessionKey"] == boss["sessionKey"] and worker["status"] == "ok"
    assert "sessions_spawn" in seen["orchestrator"][0].tool_names
    assert "sessions_spawn" not in seen["worker"][0].tool_names
    [refused] = tool_results(seen["worker"][1])
    assert "depth 2" in refused and "maxDepth is 2" in refused
    # the worker's result went to the orchestrator's session, which reported to the parent in turn
    assert any("worker result: 7" in m["content"] for m in seen["orchestrator"][-1].messages if m["role"] == "user")
    assert any('"boss" finished' in r.messages[-1]["content"] for r in roles.seen["announce"])


async def test_spawning_can_be_turned_off_and_other_agents_need_allowing(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.list.ops]\n\n[agents.list.quiet.subagents]\nmaxDepth = 0\n")
    client: LocalClient = make_client()
    claw_env.server.default = Roles(
        parent=[
            tool_call("sessions_spawn", {"task": "Work as ops.", "agentId": "ops"}),
            text("refused"),
            tool_call("sessions_spawn", {"task": "Anything."}),
            text("refused too"),
        ]
    )
    events = await collect(client, (await client.run("as ops")).run_id)
    result = next(e.data for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result["isError"] and "agent 'ops' is not allowed for agent 'main'" in result["result"]
    assert "agents.defaults.subagents.allowAgents" in result["result"]

    events = await collect(client, (await client.run("spawn", agent_id="quiet")).run_id)
    result = next(e.data for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result["isError"] and "spawning subagents is turned off" in result["result"]


async def test_another_agent_once_allowed(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, '[agents.defaults.subagents]\nallowAgents = ["ops"]\n\n[agents.list.ops]\n')
    client: LocalClient = make_client()
    claw_env.server.default = Roles(parent=[tool_call("sessions_spawn", {"task": "Ops work.", "agentId": "ops"})])
    handle = await client.run("as ops")
    events = await collect(client, handle.run_id)
    result = next(e.data for e in events if e.stream == "tool" and e.data["phase"] == "result")
    key = json.loads(result["result"])["childSessionKey"]
    assert key.startswith("agent:ops:subagent:")
    state = await settle(client, handle.run_id)
    assert state["children"][0]["status"] == "ok" and state["children"][0]["agentId"] == "ops"
    assert [r["key"] for r in (await client.call("sessions.list", agentId="ops"))["sessions"]] == [key]
