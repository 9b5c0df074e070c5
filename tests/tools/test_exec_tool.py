"""The exec tool running real commands: exit codes, timeouts, aborts, floods and the environment."""

from __future__ import annotations

import asyncio
import json
import os
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from claw.tools.base import ToolContext
from claw.tools.exec_env import DEFAULT_NAMES, command_env, has_credentials, is_secret_name
from claw.tools.registry import ToolRegistry
from tests.support.waiting import deadline
from tests.tools.conftest import CallTool, MakeCtx
from tests.tools.helpers import process_gone, wait_until

STUBBORN_GRANDCHILD = 'trap "" TERM; echo $$ > grandchild.pid; echo $$; exec sleep 60\n'


def process_group(pid: int) -> int:
    """The process group `pid` belongs to (read from procfs, so no permission is needed)."""
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return int(stat[stat.rfind(b")") + 2 :].split()[2])


def group_members(pgid: int) -> list[int]:
    """The processes of group `pgid` that still run (zombies are dead, merely unreaped)."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if process_group(int(entry)) == pgid and not process_gone(int(entry)):
                    members.append(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                continue
    return members


@pytest.fixture
def full(make_ctx: MakeCtx) -> ToolContext:
    return make_ctx(exec={"security": "full", "ask": "off"})


@pytest.fixture
def unsandboxed(make_ctx: MakeCtx) -> ToolContext:
    """For the tests that follow a process by the pid it wrote: in the sandbox that is its PID namespace's
    number (tests/tools/test_exec_orphans.py follows sandboxed commands by a unique argument instead)."""
    return make_ctx(exec={"security": "full", "ask": "off"}, sandbox={"mode": "off"})


@pytest.fixture
def stubborn(workspace: Path) -> str:
    """A command whose grandchild ignores SIGTERM and records its pid in grandchild.pid."""
    (workspace / "child.sh").write_text(STUBBORN_GRANDCHILD)
    return "sh -c 'sh ./child.sh & wait'; echo never"


async def test_output_and_exit_codes(call: CallTool, full: ToolContext) -> None:
    ok = await call("exec", command="echo out; echo err >&2", context=full)
    assert not ok.is_error
    assert ok.text == "out\nerr\n\nexit code: 0"
    failed = await call("exec", command="echo nope; exit 3", context=full)
    assert failed.is_error
    assert failed.text == "nope\n\nexit code: 3"


async def test_runs_in_the_workspace_with_plain_sh(call: CallTool, full: ToolContext, workspace: Path) -> None:
    result = await call("exec", command="pwd; tr '\\0' ' ' < /proc/$$/cmdline", context=full)
    lines = result.text.splitlines()
    assert lines[0] == await asyncio.to_thread(os.path.realpath, workspace)
    assert lines[1].startswith("/bin/sh -c pwd;")
    assert "-l" not in lines[1].split()


async def test_timeout_kills_the_whole_group_including_a_stubborn_grandchild(
    call: CallTool, unsandboxed: ToolContext, workspace: Path, stubborn: str
) -> None:
    started = time.monotonic()
    result = await call("exec", command=stubborn, timeout=0.5, context=unsandboxed)
    elapsed = time.monotonic() - started

    assert result.is_error
    assert result.text.startswith("exec timed out after 0.5s")
    assert "never" not in result.text
    pid = int((workspace / "grandchild.pid").read_text())
    assert str(pid) in result.text
    assert wait_until(lambda: process_gone(pid), timeout=10.0), f"grandchild {pid} survived the timeout"
    assert elapsed < 30  # the grandchild would sleep 60 s: the call did not wait for it


async def test_timeout_is_capped_by_the_configured_maximum(call: CallTool, make_ctx: MakeCtx, workspace: Path) -> None:
    ctx = make_ctx(exec={"security": "full", "ask": "off", "timeoutSeconds": 0.3})
    result = await call("exec", command="sleep 30", timeout=1000, context=ctx)
    assert result.text.startswith("exec timed out after 0.3s")
    assert "killed by SIGTERM" in result.text


async def test_abort_kills_the_whole_group_including_a_stubborn_grandchild(
    registry: ToolRegistry, unsandboxed: ToolContext, workspace: Path, stubborn: str
) -> None:
    task = asyncio.create_task(registry.call("exec", json.dumps({"command": stubborn}), unsandboxed))
    pid_file = workspace / "grandchild.pid"
    async with deadline(30, "the grandchild to record its pid"):
        while not (pid_file.exists() and pid_file.read_text().strip()):
            await asyncio.sleep(0.02)
    pid = int(pid_file.read_text())
    group = process_group(pid)
    assert not process_gone(pid) and len(group_members(group)) >= 2  # the shell and the stubborn grandchild

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The grandchild ignores SIGTERM and would sleep 60 s: only the group's SIGKILL ends it within the deadline.
    assert await asyncio.to_thread(wait_until, lambda: not group_members(group), 10.0), (
        f"group {group} survived the abort: {group_members(group)}"
    )


async def test_a_flood_of_output_is_cut_with_bounded_memory(make_ctx: MakeCtx, call: CallTool) -> None:
    ctx = make_ctx(exec={"security": "full", "ask": "off", "maxOutputChars": 10_000})
    tracemalloc.start()
    try:
        result = await call("exec", command="head -c 30000000 /dev/zero | tr '\\0' 'x'", context=ctx)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not result.is_error
    assert "[... truncated exec output: kept 7000+2000 of 30000000 chars ...]" in result.text
    assert result.text.startswith("x" * 7000 + "\n[... truncated")
    assert result.text.endswith("x" * 2000 + "\n\nexit code: 0")
    assert len(result.text) < 10_000 + 50
    assert peak < 8_000_000, f"peak traced memory {peak} bytes: the output was held whole"


async def test_a_background_child_does_not_hold_the_call(call: CallTool, full: ToolContext) -> None:
    started = time.monotonic()
    result = await call("exec", command="echo started; sleep 60 &", context=full)
    assert result.text == "started\n\nexit code: 0"
    assert time.monotonic() - started < 30  # the call did not wait for the 60 s sleeper


async def test_secrets_are_not_in_the_child_environment_even_when_a_glob_passes_everything(
    call: CallTool, make_ctx: MakeCtx, monkeypatch: pytest.MonkeyPatch
) -> None:
    everything = make_ctx(exec={"security": "full", "ask": "off", "passEnv": ["*"]})
    secrets = {
        "OPENAI_API_KEY": "sk-fake-openai-0001",
        "CLAW_GATEWAY_TOKEN": "gw-fake-token-0002",
        "TELEGRAM_BOT_TOKEN": "123:fake-telegram-0003",
        "MY_SERVICE_SECRET": "fake-secret-0004",
        "DB_PASSWORD": "fake-password-0005",
        "github_token": "ghp_fake0006",
        "ANTHROPIC_API_KEY_BACKUP": "fake-api-key-0007",
        "AWS_SECRET_ACCESS_KEY": "fake-aws-0008",
        "PYTHONPATH": "/fake/pythonpath-0009",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CLAW_TEST_VISIBLE", "plain-value-0010")

    result = await call("exec", command="env", context=everything)

    assert "plain-value-0010" in result.text
    for name, value in secrets.items():
        assert value not in result.text, name
        assert f"{name}=" not in result.text


async def test_skill_env_fills_only_names_the_environment_lacks(
    call: CallTool, make_ctx: MakeCtx, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAW_TEST_EXPORTED", "from-gateway")
    monkeypatch.setenv("CLAW_TEST_EMPTY", "")
    monkeypatch.setenv("SERVICE_API_KEY", "gateway-secret-0001")
    skill_env = {
        "CLAW_TEST_EXPORTED": "from-config",  # the value the user passed wins
        "CLAW_TEST_EMPTY": "filled",  # an empty value counts as unset
        "SERVICE_API_KEY": "configured-0002",  # the gateway's own stays out; the configured one is not
        "CLAW_TEST_NEW": "new-0003",
    }
    full = make_ctx(exec={"security": "full", "ask": "off", "passEnv": ["CLAW_TEST_*", "SERVICE_*"]})
    ctx = replace(full, skill_env=skill_env)
    command = 'echo "$CLAW_TEST_EXPORTED $CLAW_TEST_EMPTY $SERVICE_API_KEY $CLAW_TEST_NEW"'
    result = await call("exec", command=command, context=ctx)
    assert result.text == "from-gateway filled configured-0002 new-0003\n\nexit code: 0"
    assert "gateway-secret-0001" not in result.text
    assert "configured-0002" not in repr(ctx)


def test_secret_name_rules() -> None:
    for name in [
        "OPENAI_API_KEY",
        "openai_api_key",
        "SLACK_BOT_TOKEN",
        "X_SECRET",
        "PGPASSWORD",
        "MY_API_KEY_2",
        "TRACKER_AUTH",
        "DATABASE_URL",
        "SENTRY_DSN",
    ]:
        assert is_secret_name(name), name
    for name in ["PATH", "HOME", "LANG", "KEYBOARD", "TOKENIZERS_PARALLELISM", "TERM", "AUTHOR"]:
        assert not is_secret_name(name), name
    for value in ["https://u:p@host/x", "http://proxyuser:pw@proxy:3128", "postgres://app:pw@db/app", "x ftp://a@b"]:
        assert has_credentials(value), value
    for value in ["https://host/x", "/usr/bin:/bin", "user@example.com", "http://proxy:3128"]:
        assert not has_credentials(value), value


def test_the_command_environment_is_the_defaults_and_what_config_passes() -> None:
    gateway = {
        "PATH": "/bin",
        "HOME": "/home/u",
        "LC_TIME": "C",
        "EDITOR": "vi",  # not a default, not passed
        "A_TOKEN": "t",
        "GIT_AUTHOR_NAME": "me",
        "GIT_ASKPASS_TOKEN": "t2",  # matches the glob, but looks secret: a glob does not pass it
        "GIT_REMOTE": "https://u:pw@host/r.git",  # matches the glob, but holds credentials
        "TRACKER_AUTH": "Bearer x",  # named exactly: the operator passes it on purpose
        "TERM": "() { :; }; echo pwned",  # an exported function stays out even among the defaults
        "SHELL": "http://u:pw@x",  # so does a default holding credentials
    }
    env = command_env(["GIT_*", "TRACKER_AUTH"], gateway)
    assert env == {
        "PATH": "/bin",
        "HOME": "/home/u",
        "LC_TIME": "C",
        "GIT_AUTHOR_NAME": "me",
        "TRACKER_AUTH": "Bearer x",
    }


def test_the_defaults_include_what_mcp_servers_get() -> None:
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

    assert set(DEFAULT_INHERITED_ENV_VARS) <= set(DEFAULT_NAMES)


async def test_bad_arguments(call: CallTool, full: ToolContext) -> None:
    empty = await call("exec", command="", context=full)
    assert empty.is_error and empty.text == "exec: argument 'command' must not be empty"
    negative = await call("exec", command="true", timeout=-1, context=full)
    assert negative.is_error and "'timeout' must be a positive number" in negative.text
