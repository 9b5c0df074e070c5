"""exec_policy: security x ask, allowlist matching over resolved paths, chains and hazards."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from claw.config import ExecSettings
from claw.tools.allow_entry import AllowEntry
from claw.tools.exec_policy import decide, fallback, match_allowlist
from claw.tools.shell_chain import split_chain

PATH = os.environ.get("PATH", os.defpath)


def _bin(name: str) -> str:
    found = shutil.which(name, path=PATH)
    assert found, f"test needs {name} on PATH"
    return os.path.realpath(found)


ECHO, HEAD = _bin("echo"), _bin("head")
ALLOW = [ECHO, HEAD]


def _decide(command: str, tmp_path: Path, patterns: list[str] = ALLOW, **settings: str):
    return decide(command, ExecSettings(**settings), patterns, cwd=tmp_path, path_env=PATH)


@pytest.mark.parametrize(
    "command", ["echo ok", "echo ok | head -n1", "echo a && echo b || echo c; echo d", "echo 'a > b'"]
)
def test_allowlist_hit_runs_without_asking(tmp_path: Path, command: str) -> None:
    verdict = _decide(command, tmp_path, security="allowlist", ask="on-miss")
    assert verdict.action == "allow" and verdict.allowlisted


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("echo ok; touch P", "is not in the allowlist"),
        ("echo ok && touch P", "is not in the allowlist"),
        ("echo ok || touch P", "is not in the allowlist"),
        ("echo ok | touch P", "is not in the allowlist"),
        ("echo ok & touch P", "is not in the allowlist"),
        ("echo ok\ntouch P", "is not in the allowlist"),
        ("echo $(touch P)", "command substitution"),
        ('echo "$(touch P)"', "command substitution"),
        ("echo `touch P`", "command substitution"),
        ("head -n1 f > P", "redirection"),
        ("head -n1 < f", "redirection"),
        ("(touch P)", "subshell"),
        ("env bash -c 'touch P'", "env runs other commands"),
        ("FOO=1 echo hi", "environment assignment FOO="),
        ("nosuchbinary-xyz", "no such executable"),
        ("echo 'unbalanced", "unbalanced quotes"),
    ],
)
def test_allowlist_miss_asks_on_miss_and_denies_with_ask_off(tmp_path: Path, command: str, reason: str) -> None:
    asked = _decide(command, tmp_path, security="allowlist", ask="on-miss")
    assert asked.action == "ask" and not asked.allowlisted
    assert reason in asked.reason
    denied = _decide(command, tmp_path, security="allowlist", ask="off")
    assert denied.action == "deny"
    assert denied.reason.startswith("allowlist miss (") and reason in denied.reason


def test_security_deny_wins_over_everything(tmp_path: Path) -> None:
    for ask in ("off", "on-miss", "always"):
        verdict = _decide("echo ok", tmp_path, security="deny", ask=ask)
        assert verdict.action == "deny" and "security=deny" in verdict.reason


def test_full_with_ask_off_or_on_miss_allows_anything(tmp_path: Path) -> None:
    for ask in ("off", "on-miss"):
        assert _decide("echo $(rm -rf x) > y", tmp_path, [], security="full", ask=ask).action == "allow"


def test_ask_always_asks_even_when_allowlisted(tmp_path: Path) -> None:
    for security in ("allowlist", "full"):
        verdict = _decide("echo ok", tmp_path, security=security, ask="always")
        assert verdict.action == "ask" and verdict.allowlisted


def test_bare_basename_patterns_are_ignored_and_globs_are_case_insensitive(tmp_path: Path) -> None:
    assert not match_allowlist("echo hi", ["echo"], cwd=tmp_path, path_env=PATH).ok
    assert match_allowlist("echo hi", [ECHO.upper()], cwd=tmp_path, path_env=PATH).ok
    assert match_allowlist("echo hi | head -n1", [os.path.dirname(ECHO) + "/*"], cwd=tmp_path, path_env=PATH).ok


def test_patterns_through_a_symlinked_directory_match_the_resolved_binary(tmp_path: Path) -> None:
    linked_bin = tmp_path / "linked-bin"
    linked_bin.symlink_to(os.path.dirname(ECHO))
    assert match_allowlist("echo hi", [str(linked_bin / "echo")], cwd=tmp_path, path_env=PATH).ok
    assert match_allowlist("echo hi", [str(linked_bin / "ech?")], cwd=tmp_path, path_env=PATH).ok


def test_binaries_resolve_through_the_given_path_and_relative_to_cwd(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    script = tools / "mytool"
    script.write_text("#!/bin/sh\necho mine\n")
    script.chmod(0o755)
    pattern = [str(script.resolve())]
    assert match_allowlist("mytool --flag", pattern, cwd=tmp_path, path_env=str(tools)).ok
    assert not match_allowlist("mytool --flag", pattern, cwd=tmp_path, path_env=PATH).ok
    assert match_allowlist("./tools/mytool", pattern, cwd=tmp_path, path_env=PATH).ok
    assert match_allowlist("tools/mytool", pattern, cwd=tmp_path, path_env=PATH).ok


def test_fallback_when_nobody_can_answer(tmp_path: Path) -> None:
    hit = _decide("echo ok", tmp_path, security="allowlist", ask="always")
    miss = _decide("touch P", tmp_path, security="allowlist", ask="on-miss")
    for verdict, mode, expected in [
        (hit, "deny", "deny"),
        (miss, "deny", "deny"),
        (hit, "allowlist", "allow"),
        (miss, "allowlist", "deny"),
        (miss, "full", "allow"),
    ]:
        assert fallback(verdict, ExecSettings(ask_fallback=mode)).action == expected, (verdict, mode)
    allowed = _decide("echo ok", tmp_path, security="full", ask="off")
    assert fallback(allowed, ExecSettings(ask_fallback="deny")) is allowed


def test_always_remembers_each_unlisted_binary_and_nothing_for_what_cannot_be_vouched_for(tmp_path: Path) -> None:
    touch, mkdir = _bin("touch"), _bin("mkdir")
    chain = _decide("echo hi; touch x && mkdir d", tmp_path, security="allowlist", ask="on-miss")
    assert chain.remember == (AllowEntry(touch), AllowEntry(mkdir)) and not chain.exact_only
    for command in ("touch $(id)", "FOO=1 touch x", "no-such-binary-xyz", "touch x > y", "touch x; FOO=1 echo"):
        assert _decide(command, tmp_path, security="allowlist", ask="on-miss").remember == (), command


def test_split_chain_respects_quotes_and_escapes() -> None:
    assert split_chain('echo "a;b" | wc -l').segments == (("echo", "a;b"), ("wc", "-l"))
    assert split_chain("echo a\\;b").segments == (("echo", "a;b"),)
    assert split_chain("echo 'x' ;; ").segments == (("echo", "x"),)
    assert split_chain("  ").hazard == "empty command"
