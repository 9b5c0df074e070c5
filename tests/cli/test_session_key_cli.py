"""A session key typed on the command line gets the same check as one from the wire: one line, exit 2,
and no turn runs."""

from __future__ import annotations

from tests.cli.conftest import assert_one_line_error
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw


def test_agent_refuses_a_session_key_claw_would_never_make(claw_env: ClawEnv) -> None:
    done = run_claw(claw_env.env, "agent", "-m", "hello", "--session", "../../etc/passwd")
    assert_one_line_error(done, "invalid session key: 'agent:main:../../etc/passwd' contains '/'")
    too_long = run_claw(claw_env.env, "agent", "-m", "hello", "--session", "k" * 5000)
    assert_one_line_error(too_long, "is 5,011 characters long; the limit is 256")
    assert claw_env.server.chat_requests == []  # neither reached the model


def test_sessions_show_refuses_it_too_and_good_keys_still_work(claw_env: ClawEnv) -> None:
    shown = run_claw(claw_env.env, "sessions", "show", "notes/../../secret")
    assert_one_line_error(shown, "invalid parameter 'sessionKey'", "contains '/'")
    claw_env.server.script(text("fine"))
    done = run_claw(claw_env.env, "agent", "-m", "hello", "--session", "Desk")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fine"
    assert "hello" in run_claw(claw_env.env, "sessions", "show", "agent:main:desk").stdout
