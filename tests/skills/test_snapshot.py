"""The per-session skills snapshot: in the session index, kept while nothing changes, retaken after `skills add`."""

from __future__ import annotations

from pathlib import Path

from claw.store.sessions import SessionStore
from tests.gateway.conftest import collect
from tests.skills.conftest import claw, write_skill
from tests.support.fixtures import ClawEnv
from tests.support.session_index import read_index


def snapshot(env: ClawEnv) -> dict:
    index = read_index(env.home / "agents" / "main" / "sessions")
    return index["agent:main:main"]["extra"]["skillsSnapshot"]


async def turn(client, message: str) -> None:
    handle = await client.run(message)
    events = await collect(client, handle.run_id)
    assert events[-1].data["phase"] == "end", events[-1].data
    await client.gateway.runs.get(handle.run_id).task  # the index is written after the `end` event


async def test_snapshot_is_recorded_kept_and_refreshed_after_skills_add(
    claw_env: ClawEnv, workspace: Path, make_client, tmp_path: Path
) -> None:
    client = make_client()
    await turn(client, "first")
    first = snapshot(claw_env)
    assert first["version"] == 1
    names = [s["name"] for s in first["skills"]]
    assert "memory-notes" in names and "fresh-skill" not in names
    assert all(set(s) == {"name", "description", "location"} for s in first["skills"])

    await turn(client, "second")
    assert snapshot(claw_env)["version"] == 1  # nothing changed: the same snapshot is used
    assert snapshot(claw_env)["fingerprint"] == first["fingerprint"]

    source = write_skill(tmp_path / "src", "fresh-skill", "Freshly installed.")
    done = claw(claw_env.env, "skills", "add", str(source))
    assert done.returncode == 0, done.stderr

    await turn(client, "third")
    system = claw_env.server.last_request().body["messages"][0]["content"]
    location = claw_env.home / "skills" / "fresh-skill" / "SKILL.md"
    assert f"<name>fresh-skill</name><description>Freshly installed.</description><location>{location}" in system
    refreshed = snapshot(claw_env)
    assert refreshed["version"] == 2 and "fresh-skill" in [s["name"] for s in refreshed["skills"]]

    done = claw(claw_env.env, "skills", "rm", "fresh-skill")
    assert done.returncode == 0, done.stderr
    await turn(client, "fourth")
    assert "fresh-skill" not in claw_env.server.last_request().body["messages"][0]["content"]
    assert snapshot(claw_env)["version"] == 3


async def test_the_stored_snapshot_is_what_the_model_sees(claw_env: ClawEnv, workspace: Path, make_client) -> None:
    client = make_client()
    await turn(client, "first")
    sessions_dir = claw_env.home / "agents" / "main" / "sessions"
    stored = read_index(sessions_dir)["agent:main:main"]["extra"]["skillsSnapshot"]
    stored["skills"][0]["description"] = "EDITED IN THE SNAPSHOT"
    other = SessionStore(sessions_dir)  # another process edits the stored snapshot
    other.merge_extra("agent:main:main", {"skillsSnapshot": stored})
    other.close()
    await turn(client, "second")
    assert "EDITED IN THE SNAPSHOT" in claw_env.server.last_request().body["messages"][0]["content"]


async def test_new_session_takes_a_fresh_snapshot(claw_env: ClawEnv, workspace: Path, make_client) -> None:
    client = make_client()
    await turn(client, "first")
    write_skill(workspace / "skills", "later")
    await client.run("/new")
    await turn(client, "again")
    current = snapshot(claw_env)
    assert current["version"] == 1 and "later" in [s["name"] for s in current["skills"]]
