"""The `command` target: a job that runs the owner's command line instead of an agent turn (`--command`), its
output the run's output, a non-zero exit an error; an event's body reaches it on stdin."""

from __future__ import annotations

import json

from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw


def test_a_command_job_runs_its_command_and_records_the_output(claw_env: ClawEnv) -> None:
    env = {**claw_env.env, "CLAW_TEST_SECRET_TOKEN": "hunter2"}
    line = 'echo "free: plenty"; echo "token=${CLAW_TEST_SECRET_TOKEN:-unset}"; pwd'
    added = run_claw(env, "automations", "add", "--every", "1h", "--name", "disk", "--command", line)
    assert added.returncode == 0, added.stderr
    (job,) = json.loads(run_claw(env, "automations", "ls", "--json").stdout)
    assert job["session"] == "command"
    done = run_claw(env, "automations", "run", "disk", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "ok" and result["runId"] is None
    assert result["output"].splitlines() == ["free: plenty", "token=unset", env["HOME"]]  # no secrets passed on
    assert not claw_env.server.chat_requests  # no agent turn, no model call

    failing = run_claw(env, "automations", "add", "--every", "1h", "--name", "broken", "--command", "echo oops; exit 3")
    assert failing.returncode == 0, failing.stderr
    done = run_claw(env, "automations", "run", "broken", "--json")
    assert done.returncode == 1 and json.loads(done.stdout)["error"] == "the command exited with status 3: oops"


def test_message_and_command_are_one_or_the_other(claw_env: ClawEnv) -> None:
    for args in ((), ("-m", "x", "--command", "true")):
        done = run_claw(claw_env.env, "automations", "add", "--every", "1h", *args)
        assert done.returncode == 2 and "--message TEXT (an agent turn) or --command LINE" in done.stderr
