"""`claw automations add --deliver dingtalk:…` as real processes: a group's openConversationId or `user:<staffId>`
is accepted once a DingTalk robot is configured; a malformed target is refused in one line (exit 2)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import RunClaw, assert_one_line_error
from tests.cli.test_automations_delivery import add, configure, jobs

# One-shot commands start no channel: the secret's variable need not be set.
DINGTALK = '[channels.dingtalk]\nclientId = "dingtestclientid0001"\nclientSecretEnv = "CLAW_TEST_UNSET_DT_SECRET"\n'


def test_dingtalk_targets_are_checked_when_the_automation_is_added(run_claw: RunClaw, claw_home: Path) -> None:
    missing = add(run_claw, "dingtalk:cidAbc==", expect=None)
    assert_one_line_error(missing, "no dingtalk account is configured", "[channels.dingtalk]")
    configure(claw_home, DINGTALK)
    add(run_claw, "dingtalk:cidAbC+12/xyz==")
    add(run_claw, "dingtalk:user:manager1234", name="dm")
    assert [job["deliver"] for job in jobs(run_claw)] == ["dingtalk:cidAbC+12/xyz==", "dingtalk:user:manager1234"]
    bad = add(run_claw, "dingtalk:user:", expect=None, name="bad")
    assert_one_line_error(bad, "invalid dingtalk target", "user:<staffId>")
    assert len(jobs(run_claw)) == 2
