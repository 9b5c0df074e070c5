"""`claw config path|get|set|unset`: dotted keys, TOML values, validation before writing."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from claw.config_edit import parse_value
from tests.cli.conftest import assert_one_line_error


@pytest.fixture
def config_file(run_claw, claw_home: Path) -> Path:
    run_claw("init")
    return claw_home / "config.toml"


def test_path(run_claw, claw_home: Path) -> None:
    assert run_claw("config", "path").stdout.strip() == str(claw_home / "config.toml")


def test_get_unset_keys_print_defaults(run_claw, config_file: Path) -> None:
    assert run_claw("config", "get", "gateway.port").stdout.strip() == "18789"
    assert run_claw("config", "get", "gateway.bind").stdout.strip() == "127.0.0.1"
    assert run_claw("config", "get", "agents.defaults.maxConcurrent").stdout.strip() == "4"
    assert run_claw("config", "get", "agents.defaults.bootstrapMaxChars").stdout.strip() == "20000"
    assert json.loads(run_claw("config", "get", "gateway.port", "--json").stdout) == 18789
    unset = run_claw("config", "get", "agents.defaults.model")
    assert unset.stdout == ""
    assert "not set" in unset.stderr


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("gateway.port", "9000", 9000),
        ("agents.defaults.timeoutSeconds", "30.5", 30.5),
        ("agents.defaults.model", "openai/gpt-4o-mini", "openai/gpt-4o-mini"),
        ("gateway.bind", '"true"', "true"),
        ("agents.defaults.tools.exec.allowlist", '["ls", "git status"]', ["ls", "git status"]),
        (
            "agents.defaults.model",
            '{primary = "a/b", fallbacks = ["c/d"]}',
            {"primary": "a/b", "fallbacks": ["c/d"]},
        ),
    ],
)
def test_set_then_get_round_trips(run_claw, config_file: Path, key: str, value: str, expected: object) -> None:
    run_claw("config", "set", key, value)

    assert json.loads(run_claw("config", "get", key, "--json").stdout) == expected
    stored: object = tomllib.loads(config_file.read_text())
    for part in key.split("."):
        stored = stored[part]  # type: ignore[index]
    assert stored == expected
    assert config_file.read_text().startswith("# claw configuration"), "comments must survive"
    assert config_file.stat().st_mode & 0o777 == 0o600


def test_values_parse_as_toml_else_string() -> None:
    assert parse_value("true") is True
    assert parse_value("false") is False
    assert parse_value("12") == 12
    assert parse_value("[1, 2]") == [1, 2]
    assert parse_value("openai/gpt-4o") == "openai/gpt-4o"
    assert parse_value("1\nx = 2") == "1\nx = 2"


def test_bool_value_is_a_bool_not_text(run_claw, config_file: Path) -> None:
    # No setting takes a bool yet; a bool where a string belongs shows the value was parsed as one.
    done = run_claw("config", "set", "gateway.bind", "true", expect=None)
    assert_one_line_error(done, "gateway.bind", "(got True)")


def test_snake_case_key_is_stored_camel_case(run_claw, config_file: Path) -> None:
    run_claw("config", "set", "agents.defaults.max_concurrent", "8")
    assert tomllib.loads(config_file.read_text())["agents"]["defaults"]["maxConcurrent"] == 8


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("agents.defaults.maxConcurrent", "abc", "agents.defaults.maxConcurrent"),
        ("agents.defaults.maxConcurrent", "0", "agents.defaults.maxConcurrent"),
        ("gateway.port", "70000", "gateway.port"),
        ("session.dmScope", "everyone", "session.dmScope"),
    ],
)
def test_invalid_value_is_rejected_and_file_unchanged(
    run_claw, config_file: Path, key: str, value: str, fragment: str
) -> None:
    before = config_file.read_bytes()
    done = run_claw("config", "set", key, value, expect=None)
    assert_one_line_error(done, fragment, str(config_file))
    assert config_file.read_bytes() == before


@pytest.mark.parametrize("key", ["gateway.prot", "nope", "agents.defaults.modle", "gateway.port.x", "a..b"])
def test_unknown_key(run_claw, config_file: Path, key: str) -> None:
    before = config_file.read_bytes()
    assert_one_line_error(run_claw("config", "get", key, expect=None), key)
    assert_one_line_error(run_claw("config", "set", key, "1", expect=None), key)
    assert config_file.read_bytes() == before


def test_unset_restores_default(run_claw, config_file: Path) -> None:
    run_claw("config", "set", "gateway.port", "9000")
    assert "removed gateway.port" in run_claw("config", "unset", "gateway.port").stdout
    assert run_claw("config", "get", "gateway.port").stdout.strip() == "18789"
    assert "was not set" in run_claw("config", "unset", "gateway.port").stdout


def test_list_agent_inherits_defaults(run_claw, config_file: Path) -> None:
    run_claw("config", "set", "agents.defaults.maxConcurrent", "7")
    run_claw("config", "set", "agents.list.work.timeoutSeconds", "5")
    assert run_claw("config", "get", "agents.list.work.maxConcurrent").stdout.strip() == "7"
    assert run_claw("config", "get", "agents.list.work.timeoutSeconds").stdout.strip() == "5"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[gateway\nport = 1\n", "not valid TOML"),
        ('[gateway]\nport = "x"\n', "gateway.port"),
        ("agents = 5\n", "agents"),
    ],
)
def test_broken_config_file_is_one_line_error(run_claw, claw_home: Path, text: str, fragment: str) -> None:
    claw_home.mkdir(parents=True)
    (claw_home / "config.toml").write_text(text)
    done = run_claw("config", "get", "gateway.port", expect=None)
    assert_one_line_error(done, fragment, str(claw_home / "config.toml"))
    done = run_claw("config", "set", "gateway.bind", "0.0.0.0", expect=None)
    assert_one_line_error(done, str(claw_home / "config.toml"))
    assert (claw_home / "config.toml").read_text() == text


def test_set_without_init_creates_the_file(run_claw, claw_home: Path) -> None:
    run_claw("config", "set", "gateway.port", "1234")
    assert tomllib.loads((claw_home / "config.toml").read_text()) == {"gateway": {"port": 1234}}
    assert claw_home.stat().st_mode & 0o777 == 0o700


def test_a_negative_value_needs_no_double_dash(run_claw, config_file: Path) -> None:
    refused = run_claw("config", "set", "hooks.timeoutSeconds", "-5", expect=2)  # checked as a value, not an option
    assert "No such option" not in refused.stderr and "hooks.timeoutSeconds" in refused.stderr
    run_claw("config", "set", "gateway.port", "-1", expect=2)
    run_claw("config", "set", "agents.defaults.model", "-x")  # text that starts with a dash
    assert run_claw("config", "get", "agents.defaults.model").stdout.strip() == "-x"
