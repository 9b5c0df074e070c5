"""config.toml cannot brick the gateway: bad values are refused by `claw config set` (file byte-identical) and
at load (one line naming the key), and text that is not UTF-8 is an error, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from claw.config_edit import parse_value
from claw.errors import UsageError
from tests.cli.conftest import assert_one_line_error


@pytest.fixture
def config_file(run_claw, claw_home: Path) -> Path:
    run_claw("init")
    return claw_home / "config.toml"


@pytest.mark.parametrize(
    ("key", "value", "fragments"),
    [
        ("agents.defaults.model", '{ primary = "x" ', ["agents.defaults.model", "does not parse"]),
        ("agents.defaults.model", '"unterminated', ["agents.defaults.model", "does not parse"]),
        ("agents.defaults.tools.exec.allowlist", '["ls", ', ["agents.defaults.tools.exec.allowlist", "does not parse"]),
        ("agents.defaults.model", "", ["agents.defaults.model", "cannot be empty"]),
        ("agents.defaults.model", "gpt 4o", ["agents.defaults.model", "not a model ref"]),
        ("agents.defaults.workspace", "", ["agents.defaults.workspace", "cannot be empty"]),
        ("gateway.bind", "not a host", ["gateway.bind", "not an address to listen on"]),
        ("gateway.bind", '"[::1]"', ["gateway.bind", "not an address to listen on"]),
        ("gateway.bind", "999.1.1.1", ["gateway.bind", "not an address to listen on"]),
        ("gateway.maxPayloadBytes", "99999999999999999999", ["gateway.maxPayloadBytes", "64-bit"]),
        ("gateway.maxPayloadBytes", "9999999999999", ["gateway.maxPayloadBytes", "less than or equal"]),
        ("gateway.shutdownGraceSeconds", "nan", ["gateway.shutdownGraceSeconds", "finite"]),
        ("gateway.allowedOrigins", '["http://localhost:5173/"]', ["gateway.allowedOrigins[0]", "origin"]),
        ("channels.webhook.hooks.h.replyUrl", "file:///etc/passwd", ["channels.webhook.hooks.h.replyUrl", "http"]),
        ("providers.local.baseUrl", "ftp://127.0.0.1/v1", ["providers.local.baseUrl", "http"]),
        ("memory.embeddings.baseUrl", "http://", ["memory.embeddings.baseUrl", "http"]),
        ("channels.telegram.apiBaseUrl", "javascript:alert(1)", ["channels.telegram.apiBaseUrl", "http"]),
    ],
)
def test_bad_value_is_refused_and_the_file_is_byte_identical(
    run_claw, config_file: Path, key: str, value: str, fragments: list[str]
) -> None:
    before = config_file.read_bytes()
    done = run_claw("config", "set", key, value, expect=None)
    assert_one_line_error(done, *fragments)
    assert config_file.read_bytes() == before


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("gateway.bind", "0.0.0.0", "0.0.0.0"),
        ("gateway.bind", "::", "::"),
        ("gateway.bind", "gateway.internal", "gateway.internal"),
        ("channels.webhook.hooks.ci-bot_1.replyUrl", "https://example.com/claw", "https://example.com/claw"),
        ("agents.defaults.model", "openrouter/anthropic/claude-3.5-sonnet", "openrouter/anthropic/claude-3.5-sonnet"),
        ("providers.local.apiKeyEnv", '"[text when quoted]"', "[text when quoted]"),
    ],
)
def test_good_values_still_go_in(run_claw, config_file: Path, key: str, value: str, expected: str) -> None:
    run_claw("config", "set", key, value)
    assert run_claw("config", "get", key).stdout.strip() == expected


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ('[hooks.entries."../../x"]\nenabled = true\n', 'hooks.entries."../../x"'),
        ('[channels.webhook.hooks."../../x"]\nsecretEnv = "S"\n', 'channels.webhook.hooks."../../x"'),
        ('[channels.telegram.accounts."a/b"]\nbotToken = "t"\n', 'channels.telegram.accounts."a/b"'),
        ('[gateway]\nbind = "not a host"\n', "gateway.bind"),
        ("[gateway]\nmaxPayloadBytes = 99999999999999999999\n", "gateway.maxPayloadBytes"),
        ('[agents.defaults]\nmodel = ""\n', "agents.defaults.model"),
        ('[[bindings]]\nagentId = "main"\n[[bindings]]\nagentId = "main"\npeerId = 5\n', "bindings[1].peerId"),
    ],
)
def test_bad_value_in_the_file_is_one_line_naming_the_key(run_claw, claw_home: Path, toml: str, fragment: str) -> None:
    claw_home.mkdir(parents=True)
    (claw_home / "config.toml").write_text(toml)
    for command in (("config", "get", "gateway.port"), ("agent", "-m", "hi")):
        assert_one_line_error(run_claw(*command, expect=None), str(claw_home / "config.toml"), fragment)


def test_a_bad_secret_is_named_but_never_echoed(run_claw, config_file: Path) -> None:
    config_file.write_text('[channels.webhook.hooks.h]\nsecret = ["hunter2-hunter2"]\n')
    done = run_claw("config", "get", "gateway.port", expect=None)
    assert_one_line_error(done, "channels.webhook.hooks.h.secret")
    assert "hunter2" not in done.stderr


def test_a_credentialed_url_in_an_error_is_redacted(run_claw, config_file: Path) -> None:
    done = run_claw("config", "set", "providers.x.baseUrl", "ftp://alice:s3cret-pw@host/v1", expect=None)
    assert_one_line_error(done, "providers.x.baseUrl", "ftp://***@host/v1")
    assert "s3cret-pw" not in done.stderr


@pytest.mark.parametrize(
    "command", [("config", "get", "gateway.port"), ("agent", "-m", "hi"), ("config", "set", "gateway.port", "1")]
)
def test_config_that_is_not_utf8_is_one_line(run_claw, config_file: Path, command: tuple[str, ...]) -> None:
    config_file.write_bytes(b'[gateway]\nbind = "\xff\xfe"\n')
    before = config_file.read_bytes()
    done = run_claw(*command, expect=None)
    assert_one_line_error(done, str(config_file), "not UTF-8", "line 2")
    assert config_file.read_bytes() == before


def test_doctor_reports_a_config_that_is_not_utf8_as_its_failing_check(run_claw, config_file: Path) -> None:
    # Doctor's contract: every check reported, exit 1 when one fails (as for a file that is not TOML).
    config_file.write_bytes(b"\xff\n")
    done = run_claw("doctor", expect=1)
    assert "Traceback" not in done.stdout + done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("✗ config")]
    assert "not UTF-8 text (byte 0xff on line 1)" in line


def test_values_that_start_like_toml_must_parse() -> None:
    assert parse_value('{primary = "a/b"}') == {"primary": "a/b"}
    assert parse_value('"[text]"') == "[text]"
    assert parse_value("plain words") == "plain words"
    for broken in ('{ primary = "x" ', '"open', "'open", "[1, 2", '"a"\nb = 1'):
        with pytest.raises(UsageError, match="some.key: .* does not parse"):
            parse_value(broken, "some.key")
