"""`claw automations runs JOB` shows each run's tokens and cost from the ledger (its rows carry the job and
the run), in a table within 80 columns; a run that made no model call shows "—"; `--json` carries them."""

from __future__ import annotations

import json

from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, error, text, tool_calls
from tests.support.processes import run_claw
from tests.usage.conftest import write_config


def test_automations_runs_shows_each_runs_tokens_and_cost(claw_env: ClawEnv) -> None:
    env = {**claw_env.env, "COLUMNS": "80"}
    (claw_env.home / "workspace").mkdir()
    write_config(claw_env, '[models.prices."openai/test-model"]\ninput = 2.0\noutput = 8.0\n')
    added = run_claw(env, "automations", "add", "--every", "1h", "-m", "the digest", "--name", "digest", "--json")
    job = json.loads(added.stdout)
    claw_env.server.script(
        tool_calls([("read", {"path": "SOUL.md"})], usage=Usage(300, 20)),
        text("Digest one.", usage=Usage(400, 30)),  # two calls in the first run
        text("Digest two.", usage=Usage(1000, 100)),
        error(400, "no such model"),  # the third run's one call fails before any usage is reported
    )
    for _ in range(3):
        run_claw(env, "automations", "run", job["id"])

    listed = run_claw(env, "automations", "runs", "digest", "--json")
    assert listed.returncode == 0, listed.stderr
    third, second, first = json.loads(listed.stdout)  # newest first
    assert (first["calls"], first["inputTokens"], first["outputTokens"]) == (2, 700, 50)
    assert first["cost"] == 0.0018 and second["cost"] == 0.0028
    assert third["status"] == "error" and third["inputTokens"] == 0 and third["cost"] == 0.0

    table = run_claw(env, "automations", "runs", "digest")
    assert table.returncode == 0, table.stderr
    header, *lines = table.stdout.splitlines()
    assert header.split() == ["RUN", "ID", "STARTED", "FINISHED", "STATUS", "TOKENS", "COST", "TRIGGER", "RESULT"]
    assert all(len(line) <= 80 for line in [header, *lines]), table.stdout
    assert [line.split()[0] for line in lines] == [third["id"], second["id"], first["id"]]  # ids whole
    assert "750  $0.0018" in lines[2] and "1,100  $0.0028" in lines[1] and "error" in lines[0]
