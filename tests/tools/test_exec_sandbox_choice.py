"""Which sessions exec sandboxes (`sandbox.mode`), and what it does where bwrap cannot run.

"Cannot run" is real here: `CLAW_BWRAP` names a bwrap that does not exist, so the probe finds none. Whether
a command ran sandboxed is read from inside: in the sandbox, PID 1 is bwrap's init.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from claw.tools.base import ToolContext
from claw.tools.registry import ToolRegistry, builtin_tools
from tests.tools.conftest import CallTool, MakeCtx
from tests.tools.sandbox_support import require_bwrap

WHERE = "cat /proc/1/comm; touch ran"


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CLAW_BWRAP", str(tmp_path / "no-such-bwrap"))


def full(make_ctx: MakeCtx, mode: str = "all", **ctx: str) -> ToolContext:
    context = make_ctx(exec={"security": "full", "ask": "off"}, sandbox={"mode": mode})
    return replace(context, **ctx)


def sandboxed(text: str) -> bool:
    """Whether the output of WHERE (after any notice line) came from inside a sandbox."""
    return text.split("\n\n")[-2].splitlines()[0] == "bwrap"


@pytest.mark.usefixtures("no_bwrap")
async def test_without_bwrap_the_main_session_runs_unsandboxed_and_is_told_once(
    call: CallTool, make_ctx: MakeCtx, workspace: Path
) -> None:
    first = await call("exec", command=WHERE, context=full(make_ctx))
    assert first.text.startswith("note: exec runs unsandboxed: CLAW_BWRAP=")
    note = first.text.split("\n\n")[0]
    assert "\n" not in note and "install bubblewrap" in note
    assert "claw config set agents.defaults.sandbox.mode off" in note
    assert not sandboxed(first.text) and (workspace / "ran").exists()

    second = await call("exec", command="echo again", context=full(make_ctx))
    assert second.text == "again\n\nexit code: 0"
    named = full(make_ctx, session_key="agent:main:project-x")  # another of the owner's sessions
    other = await call("exec", command="echo other", context=named)
    assert other.text.startswith("note: exec runs unsandboxed") and other.text.endswith("other\n\nexit code: 0")


@pytest.mark.usefixtures("no_bwrap")
@pytest.mark.parametrize(
    ("session_key", "channel"),
    [
        ("agent:main:main", "telegram"),  # a DM shares the main session under dmScope=main, not its owner
        ("agent:main:telegram:group:42", "telegram"),
        ("agent:main:cron:job-1", "cron"),
        ("agent:main:subagent:5f0c", "cli"),
    ],
)
async def test_without_bwrap_every_other_session_refuses_to_exec(
    call: CallTool, make_ctx: MakeCtx, workspace: Path, session_key: str, channel: str
) -> None:
    result = await call("exec", command=WHERE, context=full(make_ctx, session_key=session_key, channel=channel))
    assert result.is_error
    assert result.text.startswith(f"exec refused: commands in this session ({session_key}, from {channel})")
    assert "\n" not in result.text
    assert "install bubblewrap" in result.text and "claw config set agents.defaults.sandbox.mode off" in result.text
    assert not (workspace / "ran").exists()


@pytest.mark.usefixtures("no_bwrap")
async def test_a_refusal_comes_before_any_approval_question(call: CallTool, make_ctx: MakeCtx) -> None:
    ctx = replace(make_ctx(exec={"security": "allowlist", "ask": "always"}), channel="telegram")
    result = await call("exec", command="echo hi", context=ctx)
    assert result.text.startswith("exec refused:")


@pytest.mark.usefixtures("no_bwrap")
async def test_mode_off_runs_everywhere_unsandboxed_without_a_word(call: CallTool, make_ctx: MakeCtx) -> None:
    for ctx in (full(make_ctx, "off"), full(make_ctx, "off", channel="telegram")):
        result = await call("exec", command="echo plain", context=ctx)
        assert result.text == "plain\n\nexit code: 0"


async def test_non_main_sandboxes_all_but_the_owners_main_session(call: CallTool, make_ctx: MakeCtx) -> None:
    require_bwrap()
    main = await call("exec", command=WHERE, context=full(make_ctx, "non-main"))
    dm = await call("exec", command=WHERE, context=full(make_ctx, "non-main", channel="telegram"))
    spawned = await call("exec", command=WHERE, context=full(make_ctx, "non-main", session_key="agent:main:subagent:1"))
    assert not sandboxed(main.text) and main.text.count("\n\n") == 1  # no notice: unsandboxed by choice
    assert sandboxed(dm.text) and sandboxed(spawned.text)


@pytest.mark.usefixtures("no_bwrap")
async def test_an_agent_of_its_own_names_its_own_config_key(make_ctx: MakeCtx) -> None:
    registry = ToolRegistry(builtin_tools())
    ctx = replace(full(make_ctx), agent_id="ops", session_key="agent:ops:cron:nightly", channel="cron")
    result = await registry.call("exec", '{"command": "true"}', ctx)
    assert "claw config set agents.list.ops.sandbox.mode off" in result.text
