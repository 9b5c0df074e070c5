"""A job is named by its name or its id wherever one is asked for (`claw usage --job`, `automations runs`),
after it is removed too (its runs keep the name); a wrong one gets "no job named X (jobs: …)"."""

from __future__ import annotations

import json

from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text
from tests.support.processes import run_claw


def test_a_job_by_name_or_id_before_and_after_it_is_removed(claw_env: ClawEnv) -> None:
    env = claw_env.env
    (claw_env.home / "workspace").mkdir()
    added = run_claw(env, "automations", "add", "--every", "1h", "-m", "the brief", "--name", "brief", "--json")
    job = json.loads(added.stdout)
    run_claw(env, "automations", "add", "--every", "2h", "-m", "other", "--name", "other")
    claw_env.server.script(text("Brief one.", usage=Usage(400, 30)))
    assert run_claw(env, "automations", "run", job["id"]).returncode == 0

    for ref in ("brief", job["id"]):
        report = json.loads(run_claw(env, "usage", "--by", "run", "--job", ref, "--json").stdout)
        assert report["total"]["inputTokens"] == 400, ref

    assert run_claw(env, "automations", "rm", "brief").returncode == 0
    runs = run_claw(env, "automations", "runs", "brief", "--json")
    assert runs.returncode == 0, runs.stderr
    assert [r["status"] for r in json.loads(runs.stdout)] == ["ok"]
    report = json.loads(run_claw(env, "usage", "--by", "run", "--job", "brief", "--json").stdout)
    assert report["total"]["inputTokens"] == 400

    for args in (("usage", "--by", "run", "--job", "nosuch"), ("automations", "runs", "nosuch")):
        wrong = run_claw(env, *args)
        assert wrong.returncode != 0 and "Traceback" not in wrong.stderr
        assert wrong.stderr.strip().splitlines() == ["claw: no job named 'nosuch' (jobs: other)"], args
