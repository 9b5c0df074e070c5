"""`claw agent -m /word`: an unknown command or a command used wrongly is an error (one line, non-zero
exit), never a question for the model; a message that starts with a path is still a message."""

from __future__ import annotations

import json
import subprocess

from tests.skills.conftest import write_skill
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw


def claw(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_claw(env, *args, timeout=60)


def error_line(done: subprocess.CompletedProcess[str], code: int) -> str:
    """The one `claw: …` line on stderr of a run that exited `code` and printed nothing on stdout."""
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claw: "), done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    return lines[0]


def test_an_unknown_command_is_an_error_with_a_did_you_mean(claw_env: ClawEnv) -> None:
    bogus = claw(claw_env.env, "agent", "-m", "/bogus")
    assert error_line(bogus, 2) == "claw: unknown command /bogus — /help lists them"
    typo = claw(claw_env.env, "agent", "-m", "/stauts please")
    assert error_line(typo, 2) == "claw: unknown command /stauts (did you mean /status?) — /help lists them"
    assert claw_env.server.requests == []  # the model never saw either


def test_skills_are_among_the_suggestions(claw_env: ClawEnv) -> None:
    write_skill(claw_env.home / "workspace" / "skills", "trip-plan", "Plan a trip.")
    done = claw(claw_env.env, "agent", "-m", "/trip-plna Lisbon")
    assert "(did you mean /trip-plan?)" in error_line(done, 2)
    assert claw_env.server.requests == []


def test_an_unknown_command_needs_no_model(claw_env: ClawEnv) -> None:
    env = {k: v for k, v in claw_env.env.items() if k != "CLAW_MODEL"}
    done = claw(env, "agent", "-m", "/bogus")
    assert error_line(done, 2) == "claw: unknown command /bogus — /help lists them"


def test_a_message_that_starts_with_a_path_goes_to_the_model(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("Install it with your package manager."))
    done = claw(claw_env.env, "agent", "-m", "/usr/bin/foo is missing")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Install it with your package manager."
    assert claw_env.server.last_request().messages[-1]["content"] == "/usr/bin/foo is missing"


def test_command_errors_exit_non_zero(claw_env: ClawEnv) -> None:
    skills = claw_env.home / "workspace" / "skills"
    write_skill(skills, "needs-bin", metadata={"requires": {"bins": ["claw-test-absent-binary"]}})
    queue = claw(claw_env.env, "agent", "-m", "/queue bogus")
    assert "cannot use 'bogus'" in error_line(queue, 2)  # used wrongly: a usage error
    skill = claw(claw_env.env, "agent", "-m", "/skill nope")
    assert error_line(skill, 2) == "claw: Unknown skill 'nope'. Send /skill to list the skills you can run."
    blocked = claw(claw_env.env, "agent", "-m", "/skill needs-bin")  # could not do its job: exit 1
    assert "needs-bin is not available: missing binaries on PATH" in error_line(blocked, 1)
    fine = claw(claw_env.env, "agent", "-m", "/queue")
    assert fine.returncode == 0 and fine.stdout.startswith("Queue: ") and fine.stderr == ""
    assert claw_env.server.requests == []


def test_json_says_the_reply_is_an_error(claw_env: ClawEnv) -> None:
    done = claw(claw_env.env, "agent", "-m", "/bogus", "--json")
    assert done.returncode == 2, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "command" and answer["error"] == "unknown-command"
    assert answer["reply"] == "unknown command /bogus — /help lists them"
    status = json.loads(claw(claw_env.env, "agent", "-m", "/status", "--json").stdout)
    assert status["status"] == "command" and "error" not in status
