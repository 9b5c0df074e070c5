"""`/skill <name> [args]` and `/<name>`: a normal run whose message points the model at the SKILL.md."""

from __future__ import annotations

from pathlib import Path

from tests.gateway.conftest import collect
from tests.skills.conftest import write_skill
from tests.support.fixtures import ClawEnv


def last_user_message(env: ClawEnv) -> str:
    return env.server.last_request().body["messages"][-1]["content"]


async def test_skill_command_runs_a_turn_that_reaches_the_model(claw_env: ClawEnv, workspace: Path, client) -> None:
    folder = write_skill(workspace / "skills", "trip-plan", "Plan a trip.")
    handle = await client.run("/skill trip-plan Lisbon, 3 days in May")
    assert handle.status == "accepted" and handle.run_id
    events = await collect(client, handle.run_id)
    assert events[-1].data["phase"] == "end"
    message = last_user_message(claw_env)
    assert 'run the skill "trip-plan"' in message
    assert str(folder / "SKILL.md") in message and "with the read tool" in message
    assert "Lisbon, 3 days in May" in message
    history = await client.call("chat.history")
    first = history["messages"][0]
    assert first["display"] == "/skill trip-plan Lisbon, 3 days in May" and first["content"] == message


async def test_slash_name_runs_the_skill_unless_a_command_has_that_name(
    claw_env: ClawEnv, workspace: Path, client
) -> None:
    write_skill(workspace / "skills", "trip-plan")
    write_skill(workspace / "skills", "status", "A skill that clashes with /status.")
    by_name = await client.run("/trip_plan to Porto")
    await collect(client, by_name.run_id)
    assert 'run the skill "trip-plan"' in last_user_message(claw_env) and "to Porto" in last_user_message(claw_env)
    dashed = await client.run("/trip-plan")
    await collect(client, dashed.run_id)
    assert "The user gave no further input." in last_user_message(claw_env)
    requests = len(claw_env.server.chat_requests)
    status = await client.run("/status")
    assert status.status == "command" and "Session agent:main:main" in status.reply
    unknown = await client.run("/not-a-skill hello")  # neither a command nor a skill: an error
    assert unknown.error == "unknown-command" and unknown.run_id is None
    assert unknown.reply.startswith("unknown command /not-a-skill")
    typo = await client.run("/trip-plna to Faro")  # the did-you-mean knows the skills too
    assert typo.reply == "unknown command /trip-plna (did you mean /trip-plan?) — /help lists them"
    assert len(claw_env.server.chat_requests) == requests


async def test_listing_unknown_ineligible_and_not_invocable(claw_env: ClawEnv, workspace: Path, client) -> None:
    write_skill(workspace / "skills", "trip-plan", "Plan a trip.")
    write_skill(workspace / "skills", "manual-only", front="user-invocable: false")
    write_skill(workspace / "skills", "needs-bin", metadata={"requires": {"bins": ["claw-test-absent-binary"]}})
    listing = await client.run("/skill")
    assert listing.status == "command"
    assert "trip-plan" in listing.reply and "memory-notes" in listing.reply
    assert "manual-only" not in listing.reply and "needs-bin" not in listing.reply
    unknown = await client.run("/skill nope")
    assert unknown.reply == "Unknown skill 'nope'. Send /skill to list the skills you can run."
    assert unknown.error == "usage"
    blocked = await client.run("/skill needs-bin")
    assert blocked.reply == "Skill needs-bin is not available: missing binaries on PATH: claw-test-absent-binary"
    assert blocked.error == "failed"
    manual = await client.run("/skill manual-only")
    assert "cannot be run by hand" in manual.reply and manual.error == "failed"
    not_a_command = await client.run("/manual-only")  # not runnable by hand, so no `/<name>` either
    assert not_a_command.error == "unknown-command" and not_a_command.run_id is None
    help_reply = await client.run("/help")
    assert "/skill" in help_reply.reply and help_reply.error is None
    assert len(claw_env.server.chat_requests) == 0


async def test_the_listing_cuts_a_long_description_at_a_word_with_an_ellipsis(
    claw_env: ClawEnv, workspace: Path, client
) -> None:
    long = "Plan a trip with flights, trains, hotels and a day-by-day itinerary " * 3
    write_skill(workspace / "skills", "trip-plan", long.strip())
    listing = await client.run("/skill")
    [line] = [line for line in listing.reply.splitlines() if "trip-plan" in line]
    shown = line.split("trip-plan", 1)[1].strip()
    assert shown.endswith("…") and len(shown) <= 100
    assert long.startswith(shown[:-1]) and long[len(shown) - 1] in " ,"  # the cut falls between words
