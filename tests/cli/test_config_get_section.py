"""`claw config get SECTION` prints the section in effect: the file's values over the defaults, marked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def config_file(run_claw, claw_home: Path) -> Path:
    run_claw("init")
    return claw_home / "config.toml"


def test_a_section_shows_its_defaults_beside_what_the_file_sets(run_claw, config_file: Path) -> None:
    run_claw("config", "set", "gateway.port", "9000")

    lines = run_claw("config", "get", "gateway").stdout.splitlines()

    assert "port = 9000" in lines  # set in the file: no mark
    assert 'bind = "127.0.0.1"  # default' in lines
    assert "maxBodyBytes = 20971520  # default" in lines
    assert json.loads(run_claw("config", "get", "gateway", "--json").stdout) == {
        "bind": "127.0.0.1",
        "port": 9000,
        "allowedOrigins": [],
        "maxPayloadBytes": 25 * 1024 * 1024,
        "maxBodyBytes": 20 * 1024 * 1024,
        "shutdownGraceSeconds": 10.0,
        "handshakeTimeoutSeconds": 10.0,
        "controlUi": {"root": None},
    }
    assert run_claw("config", "get", "gateway.port").stdout.strip() == "9000"


def test_an_empty_section_is_all_defaults_not_unset(run_claw, config_file: Path) -> None:
    done = run_claw("config", "get", "gateway")  # `claw init` writes an empty [gateway]
    assert "port = 18789  # default" in done.stdout.splitlines()
    assert "not set" not in done.stderr


def test_nested_tables_merge_with_their_own_defaults_and_secrets_stay_masked(run_claw, config_file: Path) -> None:
    config_file.write_text(
        config_file.read_text() + '\n[providers.local]\nbaseUrl = "http://127.0.0.1:9/v1"\napiKey = "sk-local-key"\n'
    )
    run_claw("config", "set", "agents.defaults.tools.exec.timeoutSeconds", "30")

    providers = run_claw("config", "get", "providers").stdout
    assert "sk-local-key" not in providers
    assert 'local.apiKey = "[redacted]"' in providers.splitlines()
    assert 'local.baseUrl = "http://127.0.0.1:9/v1"' in providers.splitlines()
    assert "sk-local-key" in run_claw("config", "get", "providers", "--show-secrets").stdout

    agents = run_claw("config", "get", "agents.defaults").stdout.splitlines()
    assert "tools.exec.timeoutSeconds = 30" in agents
    assert "tools.exec.maxOutputChars = 200000  # default" in agents
    assert "maxConcurrent = 4  # default" in agents
