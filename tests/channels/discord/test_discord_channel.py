"""Discord messages and replies end to end against the fake Discord: a long reply split at 2,000 characters
in order, a REST 429 waited out, guild channels with mentions and threads (session keys, replies), the
bot's own messages ignored, streaming by edits, and automation targets."""

from __future__ import annotations

import json
import time

from claw.channels.discord.adapter import DiscordAdapter
from claw.settings.discord import DiscordAccount
from tests.channels.conftest import Start, eventually
from tests.channels.discord import test_discord_gateway as gateway_tests
from tests.channels.discord.test_discord_gateway import discord_config, ready, replies
from tests.channels.discord_fake import BOT_ID, FakeDiscord, dm, guild_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text

discord = gateway_tests.discord  # the fake Discord fixture


async def test_a_2500_character_reply_arrives_as_two_messages_in_order(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    paragraphs = [f"Paragraph {i}: " + "lorem ipsum " * 40 for i in range(5)]  # 5 × ~500 characters
    reply = "\n\n".join(paragraphs)
    assert 2400 < len(reply) < 2600
    claw_env.server.script(text(reply))
    ch = await start_channels(discord_config(discord, allowFrom=["42"]))
    await ready(discord)
    discord.dispatch("MESSAGE_CREATE", dm("write a lot"))
    await eventually(lambda: len(replies(discord)) >= 2, what="two parts")
    await ch.settled()
    parts = replies(discord)
    assert len(parts) == 2 and all(len(p) <= 2000 for p in parts)
    assert "\n\n".join(parts) == reply.strip()  # cut between paragraphs, in order
    assert all(r.body["allowed_mentions"] == {"parse": []} for r in discord.posts())


async def test_a_code_block_too_long_for_one_message_is_reopened_in_the_next(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    code = "\n".join(f"print({i})  # " + "x" * 40 for i in range(60))  # ~3,300 characters of code
    claw_env.server.script(text(f"Here:\n\n```python\n{code}\n```"))
    ch = await start_channels(discord_config(discord, allowFrom=["42"]))
    await ready(discord)
    discord.dispatch("MESSAGE_CREATE", dm("code please"))
    await eventually(lambda: len(replies(discord)) >= 2, what="the parts")
    await ch.settled()
    parts = replies(discord)
    assert all(len(p) <= 2000 for p in parts)
    fenced = [p for p in parts if "print(" in p]
    assert len(fenced) >= 2 and all(p.count("```") == 2 and "```python\n" in p for p in fenced)


async def test_a_rest_429_is_waited_out_and_the_reply_sent_once(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("after the limit"))
    ch = await start_channels(discord_config(discord, allowFrom=["42"]))
    await ready(discord)
    discord.fail(429, retry_after=0.6)
    discord.dispatch("MESSAGE_CREATE", dm("hello"))
    await eventually(lambda: replies(discord), what="the reply")
    await ch.settled()
    assert replies(discord) == ["after the limit"]
    limited, delivered = [r for r in discord.rest if r.path.endswith("/messages")]
    assert limited.status == 429 and delivered.status == 200
    assert delivered.at - limited.at >= 0.6  # retry_after honoured
    assert [r["status"] for r in ch.rows("channel_outbox")] == ["sent"]


async def test_the_per_channel_bucket_is_honoured_before_discord_refuses(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    discord.bucket_limit, discord.bucket_window = 2, 1.0
    paragraphs = [f"Part {i}: " + " ".join(["word"] * 350) for i in range(4)]  # four messages of ~1,760 characters
    claw_env.server.script(text("\n\n".join(paragraphs)))
    config = discord_config(discord, allowFrom=["42"], ratePerSecond=0)
    ch = await start_channels(config)
    await ready(discord)
    discord.dispatch("MESSAGE_CREATE", dm("four parts"))
    await eventually(lambda: len(replies(discord)) == 4, what="four parts")
    await ch.settled()
    assert [r.status for r in discord.rest if r.method == "POST"] == [200] * 4  # never a 429
    assert replies(discord) == paragraphs
    times = [r.at for r in discord.posts()]
    assert times[2] - times[0] >= 0.8  # the third waited for the bucket to reset


async def test_guild_channels_need_an_allowlist_and_a_mention_threads_get_their_own_session(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    # The two conversations run at once and reach the model in either order: answer each by its prompt.
    claw_env.server.default = lambda request: text(
        "in the thread" if request.messages[-1]["content"] == "in a thread" else "in the channel"
    )
    config = discord_config(discord, allowFrom=["42"]) + '[channels.discord.channels."555"]\n'
    ch = await start_channels(config)
    await ready(discord)
    discord.channels["888"] = {"id": "888", "type": 11, "parent_id": "555", "guild_id": "777"}
    discord.dispatch("MESSAGE_CREATE", guild_message("no mention"))
    discord.dispatch("MESSAGE_CREATE", guild_message("other channel", channel_id="556", mention=True))
    discord.dispatch(
        "MESSAGE_CREATE", {**guild_message("from a bot", mention=True), "author": {"id": "5", "bot": True}}
    )
    discord.dispatch("MESSAGE_CREATE", {**guild_message("myself"), "author": {"id": BOT_ID, "bot": True}})
    discord.dispatch("MESSAGE_CREATE", guild_message("hello bot", mention=True))
    discord.dispatch("MESSAGE_CREATE", guild_message("in a thread", channel_id="888", mention=True))
    await eventually(lambda: len(replies(discord)) == 2, what="two replies")
    await ch.settled()
    prompts = [r.messages[-1]["content"] for r in claw_env.server.chat_requests]
    assert sorted(prompts) == ["hello bot", "in a thread"]  # the mention is stripped
    rows = ch.rows("channel_inbox")
    assert [r["status"] for r in rows] == ["ignored", "ignored", "done", "done"]  # bots never reach the inbox
    assert [r["outcome"] for r in rows][:2] == ["the bot was not mentioned", "group 556 is not allowlisted"]
    keys = [json.loads(r["ctx"])["body"] for r in rows], [r["session_key"] for r in rows][2:]
    assert keys[1] == ["agent:main:discord:group:555", "agent:main:discord:group:555:thread:888"]
    channel_post, thread_post = sorted(discord.posts(), key=lambda post: post.path)
    assert channel_post.path == "/channels/555/messages" and thread_post.path == "/channels/888/messages"
    assert channel_post.body["message_reference"]["fail_if_not_exists"] is False


async def test_a_guild_entry_admits_its_channels_without_a_mention(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("anywhere in the guild"))
    config = discord_config(discord) + '[channels.discord.guilds."777"]\nrequireMention = false\n'
    await start_channels(config)
    await ready(discord)
    discord.dispatch("MESSAGE_CREATE", guild_message("no mention needed", channel_id="999"))
    await eventually(lambda: replies(discord) == ["anywhere in the guild"], what="the reply")


async def test_streaming_edits_one_message_and_the_final_text_replaces_it(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    claw_env.server.script(slow("streamed " * 30, delay_per_chunk=0.05, chunk=5))  # ~60 deltas over ~3 s
    ch = await start_channels(discord_config(discord, allowFrom=["42"], streaming=True))
    await ready(discord)
    discord.dispatch("MESSAGE_CREATE", dm("stream it"))
    await eventually(lambda: any(r.method == "PATCH" for r in discord.rest), what="an edit")
    await ch.settled()
    (posted,) = discord.posts()
    edits = [r for r in discord.rest if r.method == "PATCH"]
    assert {r.path for r in edits} == {f"{posted.path}/{next(iter(discord.messages))}"}
    assert next(iter(discord.messages.values()))["content"] == ("streamed " * 30).strip()
    times = [posted.at] + [r.at for r in edits[:-1]]  # previews; the last edit is the outbox's final text
    assert all(b - a >= 0.9 for a, b in zip(times, times[1:], strict=False))


def test_automation_targets_are_checked() -> None:
    adapter = DiscordAdapter("default", DiscordAccount(bot_token="t"))
    assert adapter.check_target("123456789012345678") is None
    assert "invalid discord target" in (adapter.check_target("general") or "")
    assert adapter.address("123") == ("discord|default|123", {"channel_id": "123"})
    assert time.time()  # the adapter was built without connecting anywhere
