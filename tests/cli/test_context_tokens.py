"""`sessions.list` / `claw sessions ls --json` report as `contextTokens` the window the turn budgets with — the
number `/context` shows — not the `contextTokens` cap setting (128,000 by default, for a model of 32,000)."""

from __future__ import annotations

import json

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw


def test_sessions_ls_reports_the_window_context_budgets(claw_env: ClawEnv) -> None:
    env = claw_env.env
    claw_env.server.script(text("hello"))
    assert run_claw(env, "agent", "-m", "hi").returncode == 0
    context = run_claw(env, "agent", "-m", "/context json")
    assert context.returncode == 0, context.stderr
    window = json.loads(context.stdout)["window"]
    [row] = json.loads(run_claw(env, "sessions", "ls", "--json").stdout)
    assert row["contextTokens"] == window == 32_000  # test-model: unknown, so the conservative default

    (claw_env.home / "config.toml").write_text('[models."test-model"]\ncontextWindow = 50000\n', encoding="utf-8")
    [row] = json.loads(run_claw(env, "sessions", "ls", "--json").stdout)
    assert row["contextTokens"] == 50_000
