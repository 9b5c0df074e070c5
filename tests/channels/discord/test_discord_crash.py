"""kill -9 of a real `claw gateway run` between Discord's delivery of a message and the reply, then a restart on
the same state: the gateway resumes its stored session, Discord replays, and the message is answered exactly once."""

from __future__ import annotations

import pytest

from tests.channels import crash_support
from tests.channels.crash_support import settled, start
from tests.channels.discord import test_discord_gateway as gateway_tests
from tests.channels.discord.test_discord_gateway import discord_config
from tests.channels.discord_fake import FakeDiscord, dm
from tests.channels.processes import GatewayProc, rows, wait_until
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

discord = gateway_tests.discord  # the fake Discord fixture

procs = crash_support.procs  # the fixture


@pytest.mark.timeout(180)
def test_killed_after_the_inbox_commit_the_resumed_session_answers_once(
    claw_env: ClawEnv, procs: list[GatewayProc], discord: FakeDiscord
) -> None:
    claw_env.server.script(text("the only answer"))
    config = discord_config(discord, allowFrom=["42"])
    first = start(claw_env, procs, config, fault="inbox.before_process")
    wait_until(lambda: discord.identifies and discord._current, what="an identified session")
    discord.replay_overlap = True  # the resume after the restart replays the message once more
    discord.dispatch("MESSAGE_CREATE", dm("are you there?"))
    first.wait_killed()
    assert claw_env.server.chat_requests == [] and discord.posts() == []
    start(claw_env, procs, config)
    wait_until(lambda: discord.resumes, what="a Resume from the restarted gateway")
    wait_until(lambda: discord.posts(), what="the reply")
    settled(claw_env)
    assert [r.body["content"] for r in discord.posts()] == ["the only answer"]
    assert len(claw_env.server.chat_requests) == 1 and len(discord.identifies) == 1
    assert [r["status"] for r in rows(claw_env.home, "channel_inbox")] == ["done"]
