"""The `<available_skills>` block, as the scripted model server receives it, and `read` on skill files."""

from __future__ import annotations

import re
from pathlib import Path

from claw.paths import bundled_dir
from tests.gateway.conftest import collect, write_config
from tests.skills.conftest import write_skill
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call


def system_prompt(env: ClawEnv, index: int = -1) -> str:
    return env.server.chat_requests[index].body["messages"][0]["content"]


def block_of(system: str) -> str:
    match = re.search(r"<available_skills>.*?</available_skills>", system, re.S)
    assert match, system
    return match.group(0)


async def one_turn(client, message: str = "hello") -> None:
    handle = await client.run(message)
    events = await collect(client, handle.run_id)
    assert events[-1].data["phase"] == "end", events[-1].data


async def test_eligible_skills_reach_the_model_with_name_description_location(
    claw_env: ClawEnv, workspace: Path, make_client
) -> None:
    skills = workspace / "skills"
    alpha = write_skill(skills, "alpha", "Alpha <does> & things")
    write_skill(skills, "hidden", front="disable-model-invocation: true")
    write_skill(skills, "needs-bin", metadata={"requires": {"bins": ["claw-test-absent-binary"]}})
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_text("---\nname: broken\n")
    beta = write_skill(claw_env.home / "skills", "beta", "Installed beta")
    await one_turn(make_client())
    system = system_prompt(claw_env)
    assert "## Skills" in system and "read its SKILL.md with the read tool" in system
    block = block_of(system)
    assert (
        "<skill><name>alpha</name><description>Alpha &lt;does&gt; &amp; things</description>"
        f"<location>{alpha / 'SKILL.md'}</location></skill>"
    ) in block
    assert f"<name>beta</name><description>Installed beta</description><location>{beta / 'SKILL.md'}" in block
    bundled = bundled_dir("skills") / "memory-notes" / "SKILL.md"
    assert "<name>memory-notes</name>" in block and f"<location>{bundled}</location>" in block
    for absent in ("hidden", "needs-bin", "broken"):
        assert f"<name>{absent}</name>" not in block
    assert "truncated" not in system
    assert system.index("# Project Context") < system.index("<available_skills>")


async def test_count_cap(claw_env: ClawEnv, workspace: Path, make_client) -> None:
    write_config(claw_env.home, "[skills]\nallowBundled = []\n[skills.limits]\nmaxSkillsInPrompt = 3\n")
    for name in ("s1", "s2", "s3", "s4", "s5"):
        write_skill(workspace / "skills", name)
    await one_turn(make_client())
    system = system_prompt(claw_env)
    assert re.findall(r"<name>(.*?)</name>", block_of(system)) == ["s1", "s2", "s3"]
    assert "⚠️ Skills truncated: included 3 of 5." in system
    assert "claw skills check" in system


async def test_char_cap_shortens_then_drops_descriptions_then_skills(
    claw_env: ClawEnv, workspace: Path, make_client
) -> None:
    long = "word " * 60
    for name in ("a1", "a2", "a3", "a4"):
        write_skill(workspace / "skills", name, f"{name} {long}")
    location_chars = len(str(workspace / "skills" / "a1" / "SKILL.md"))
    budgets = {
        "short": 4 * (location_chars + 160) + 60,
        "none": 4 * (location_chars + 70) + 60,
        "fewer": 2 * (location_chars + 70) + 60,
    }
    for label, budget in budgets.items():
        write_config(claw_env.home, f"[skills]\nallowBundled = []\n[skills.limits]\nmaxSkillsPromptChars = {budget}\n")
        client = make_client()
        await client.run("/new")
        await one_turn(client)
        system = system_prompt(claw_env)
        block = block_of(system)
        assert len(block) <= budget, (label, len(block), budget)
        names = re.findall(r"<name>(.*?)</name>", block)
        if label == "short":
            assert names == ["a1", "a2", "a3", "a4"] and "…</description>" in block
            assert "included 4 of 4; descriptions shortened" in system
        elif label == "none":
            assert names == ["a1", "a2", "a3", "a4"] and "<description>" not in block
            assert "included 4 of 4; descriptions omitted" in system
        else:
            assert names == ["a1", "a2"] and "included 2 of 4; descriptions omitted" in system


async def test_no_skills_no_section(claw_env: ClawEnv, workspace: Path, make_client) -> None:
    write_config(claw_env.home, "[skills]\nallowBundled = []\n")
    await one_turn(make_client())
    assert "<available_skills>" not in system_prompt(claw_env)


async def test_read_tool_reads_bundled_and_installed_skills_outside_the_workspace(
    claw_env: ClawEnv, workspace: Path, make_client
) -> None:
    bundled = bundled_dir("skills") / "memory-notes" / "SKILL.md"
    installed = write_skill(claw_env.home / "skills", "beta", body="# Beta instructions\n") / "SKILL.md"
    claw_env.server.script(
        tool_call("read", {"path": str(bundled)}),
        tool_call("read", {"path": str(installed)}),
        tool_call("read", {"path": str(claw_env.home / "config.toml")}),
        text("done"),
    )
    write_config(claw_env.home, "# nothing\n")
    await one_turn(make_client(), "use your skills")
    results = [m for m in claw_env.server.chat_requests[-1].body["messages"] if m["role"] == "tool"]
    assert "# Memory notes" in results[0]["content"]
    assert "# Beta instructions" in results[1]["content"]
    assert "path escapes workspace" in results[2]["content"]  # the rest of CLAW_HOME stays out of reach
