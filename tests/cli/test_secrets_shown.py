"""Secrets never printed: `claw config get` and `set` mask secret-like keys and URL credentials unless asked,
and `claw doctor` shows a credentialed endpoint without its password."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw as run_claw_in

SECRET = "whsec-0123456789abcdef"
TOKEN = "123456:telegram-bot-token-value"


@pytest.fixture
def config_file(run_claw, claw_home: Path) -> Path:
    run_claw("init")
    path = claw_home / "config.toml"
    path.write_text(
        path.read_text()
        + f'\n[channels.webhook.hooks.ci]\nsecret = "{SECRET}"\nsecretEnv = "CI_HOOK_SECRET"\n'
        + 'replyUrl = "https://bot:reply-password@example.com/reply"\n'
        + f'\n[channels.telegram]\nbotToken = "{TOKEN}"\n'
        + '\n[providers.local]\nbaseUrl = "http://proxyuser:proxy-password@127.0.0.1:9/v1"\napiKey = "sk-local-key"\n'
    )
    return path


def test_get_masks_secret_keys_and_url_credentials(run_claw, config_file: Path) -> None:
    shown = run_claw("config", "get", "channels").stdout
    for secret in (SECRET, TOKEN, "reply-password"):
        assert secret not in shown
    assert "[redacted]" in shown and "https://***@example.com/reply" in shown
    assert "CI_HOOK_SECRET" in shown  # the name of a variable is no secret

    as_json = json.loads(run_claw("config", "get", "channels", "--json").stdout)
    assert as_json["webhook"]["hooks"]["ci"]["secret"] == "[redacted]"
    assert as_json["telegram"]["botToken"] == "[redacted]"

    assert run_claw("config", "get", "providers.local.apiKey").stdout.strip() == "[redacted]"
    assert run_claw("config", "get", "providers.local.baseUrl").stdout.strip() == "http://***@127.0.0.1:9/v1"


def test_show_secrets_shows_them(run_claw, config_file: Path) -> None:
    shown = run_claw("config", "get", "channels", "--show-secrets").stdout
    assert SECRET in shown and TOKEN in shown and "bot:reply-password@" in shown
    assert run_claw("config", "get", "providers.local.apiKey", "--show-secrets").stdout.strip() == "sk-local-key"


def test_set_does_not_echo_the_secret_it_stored(run_claw, config_file: Path) -> None:
    done = run_claw("config", "set", "channels.webhook.hooks.ci.secret", "a-new-secret-value")
    assert "a-new-secret-value" not in done.stdout and "[redacted]" in done.stdout
    assert 'secret = "a-new-secret-value"' in config_file.read_text()
    assert stat.S_IMODE(config_file.stat().st_mode) == 0o600


def test_doctor_does_not_print_the_password_of_a_credentialed_base_url(claw_env: ClawEnv) -> None:
    assert run_claw_in(claw_env.env, "init").returncode == 0
    port = claw_env.server.base_url.split(":")[2].split("/")[0]
    env = {**claw_env.env, "OPENAI_BASE_URL": f"http://alice:doctor-pw-123@127.0.0.1:{port}/v1"}
    for args in (("doctor",), ("doctor", "--json")):
        done = run_claw_in(env, *args)
        assert "doctor-pw-123" not in done.stdout + done.stderr
        assert f"http://***@127.0.0.1:{port}/v1" in done.stdout
    # and when the endpoint is down, the "cannot reach" line is redacted too
    down = {**claw_env.env, "OPENAI_BASE_URL": "http://alice:doctor-pw-123@127.0.0.1:9/v1"}
    done = run_claw_in(down, "doctor")
    assert done.returncode == 1 and "cannot reach http://***@127.0.0.1:9/v1" in done.stdout
    assert "doctor-pw-123" not in done.stdout + done.stderr


def test_a_gateway_url_with_credentials_is_redacted_in_errors(run_claw, config_file: Path) -> None:
    done = run_claw("agent", "-m", "hi", "--url", "ws://alice:gw-url-pw@127.0.0.1:9/", expect=1)
    assert "cannot connect to the gateway at ws://***@127.0.0.1:9/" in done.stderr
    assert "gw-url-pw" not in done.stderr
