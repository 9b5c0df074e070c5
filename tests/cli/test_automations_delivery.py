"""`claw automations add|edit --deliver …` as real processes: a target no configured channel can reach is refused
in one line (exit 2) and nothing is stored or changed; `claw automations ls` shows where each job delivers."""

from __future__ import annotations

import json
from pathlib import Path

from rich.cells import cell_len

from tests.cli.conftest import RunClaw, assert_one_line_error

# The account is named by its token's variable, which need not be set: one-shot commands start no channel.
TELEGRAM = '[channels.telegram]\nbotTokenEnv = "CLAW_TEST_UNSET_TELEGRAM_TOKEN"\n'


def configure(claw_home: Path, text: str) -> Path:
    claw_home.mkdir(parents=True, exist_ok=True)
    path = claw_home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def jobs(run_claw: RunClaw) -> list[dict[str, object]]:
    return json.loads(run_claw("automations", "ls", "--json").stdout)


def add(run_claw: RunClaw, deliver: str, *, expect: int | None = 0, name: str = "brief") -> object:
    return run_claw("automations", "add", "--every", "1h", "-m", "brief me", "--name", name, "--deliver", deliver,
                    expect=expect)  # fmt: skip


def test_an_unknown_channel_is_refused_and_nothing_is_stored(run_claw: RunClaw) -> None:
    done = add(run_claw, "carrier:pigeon", expect=None)
    assert_one_line_error(done, "unknown channel 'carrier' in --deliver carrier:pigeon", "configured: none")
    assert jobs(run_claw) == []


def test_telegram_with_no_account_configured_is_refused_naming_what_to_add(run_claw: RunClaw, claw_home: Path) -> None:
    done = add(run_claw, "telegram:123", expect=None)
    assert_one_line_error(done, "no telegram account is configured", "--deliver telegram:123", "[channels.telegram]")
    assert jobs(run_claw) == []
    path = configure(claw_home, TELEGRAM.replace("[channels.telegram]\n", "[channels.telegram]\nenabled = false\n"))
    off = add(run_claw, "telegram:123", expect=None)
    assert_one_line_error(off, "telegram is switched off", "enabled = true", str(path))
    assert jobs(run_claw) == []


def test_with_telegram_configured_its_targets_are_accepted_and_others_named(run_claw: RunClaw, claw_home: Path) -> None:
    configure(claw_home, TELEGRAM)
    add(run_claw, "telegram:-100321:9")
    assert [job["deliver"] for job in jobs(run_claw)] == ["telegram:-100321:9"]
    done = add(run_claw, "carrier:pigeon", expect=None, name="other")
    assert_one_line_error(done, "unknown channel 'carrier'", "configured: telegram")
    assert len(jobs(run_claw)) == 1


def test_a_named_telegram_account_is_enough(run_claw: RunClaw, claw_home: Path) -> None:
    configure(claw_home, '[channels.telegram.accounts.work]\nbotTokenEnv = "CLAW_TEST_UNSET_WORK_TOKEN"\n')
    add(run_claw, "telegram:42")
    assert [job["deliver"] for job in jobs(run_claw)] == ["telegram:42"]


def test_the_forms_that_need_no_channel_still_work(run_claw: RunClaw) -> None:
    add(run_claw, "none", name="quiet")
    add(run_claw, "webhook:https://ci.example/claw", name="hook")
    assert [job["deliver"] for job in jobs(run_claw)] == ["none", "webhook:https://ci.example/claw"]


def test_edit_checks_the_target_too_and_a_refused_edit_changes_nothing(run_claw: RunClaw, claw_home: Path) -> None:
    add(run_claw, "none")
    for bad, reason in (("carrier:pigeon", "unknown channel 'carrier'"), ("telegram:123", "no telegram account")):
        done = run_claw("automations", "edit", "brief", "--deliver", bad, expect=None)
        assert_one_line_error(done, reason)
        assert [job["deliver"] for job in jobs(run_claw)] == ["none"]
    configure(claw_home, TELEGRAM)
    run_claw("automations", "edit", "brief", "--deliver", "telegram:123")
    assert [job["deliver"] for job in jobs(run_claw)] == ["telegram:123"]


def test_ls_shows_where_each_job_delivers_within_80_columns(run_claw: RunClaw, claw_home: Path) -> None:
    configure(claw_home, TELEGRAM)
    add(run_claw, "telegram:-1001234567890:77", name="chat")
    add(run_claw, "webhook:https://user:pw@ci.example/claw?token=s3cret", name="hook")
    add(run_claw, "none", name="quiet")
    header, *rows = run_claw("automations", "ls", env={"COLUMNS": "80"}).stdout.splitlines()
    assert "TO" in header.split()
    assert all(cell_len(line) <= 80 for line in (header, *rows))
    by_name = {row.split()[1]: row.split()[-2] for row in rows}  # the cell before ON (none has a space)
    assert by_name["chat"].startswith("telegram:") and by_name["hook"].startswith("webhook:")
    assert by_name["quiet"] == "none"
    header, *rows = run_claw("automations", "ls", "--wide").stdout.splitlines()
    wide = {row.split()[1]: row.split()[-2] for row in rows}  # every cell whole
    assert wide == {"chat": "telegram:-1001234567890:77", "hook": "webhook:https://ci.example/claw", "quiet": "none"}
    # The URL's credentials and query (which may hold a token) stay out of the table; --json has them.
    assert "s3cret" not in "\n".join(rows) and "pw@" not in "\n".join(rows)
