"""`claw agents add work` ends with next steps for `work`, not for main, and those steps work."""

from __future__ import annotations

from pathlib import Path


def test_agents_add_names_the_new_agent_in_its_next_steps(run_claw, claw_home: Path) -> None:
    run_claw("init")

    shown = run_claw("agents", "add", "work").stdout
    steps = shown.split("Next steps", 1)[1].splitlines()[1:]

    assert f"Workspace: {claw_home / 'workspace-work'}" in shown
    assert "claw workspace edit soul --agent work" in shown
    assert any('claw agent --agent work -m "hello"' in step for step in steps)
    assert not any("agents.defaults.model openai" in step for step in steps)  # that is main's first step
    for step in steps:
        assert "--agent work" in step or "agents.list.work" in step or 'agentId = "work"' in step, step

    model_step = next(step for step in steps if "claw config set" in step)
    command = model_step.split("#", 1)[0].split()[1:]  # the step as typed, without `claw`
    run_claw(*command)
    assert run_claw("config", "get", "agents.list.work.model.primary").stdout.strip() == "ollama/llama3.2"
    assert run_claw("config", "get", "agents.defaults.model", expect=None).stdout == ""  # main is untouched


def test_init_of_main_keeps_its_own_next_steps(run_claw) -> None:
    shown = run_claw("init").stdout
    assert 'claw agent -m "hello"' in shown and "--agent" not in shown
