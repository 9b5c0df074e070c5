"""`claw sessions search|reindex|fork|export --format`, `ls --tree` for forks and `claw agent -c`, run as
the real CLI against the scripted model server."""

from __future__ import annotations

import json
import subprocess
from html.parser import HTMLParser

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import run_claw


def claw(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = run_claw(env, *args, timeout=60)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done


def test_search_prints_session_time_and_snippet_and_finds_archived_ones(claw_env: ClawEnv) -> None:
    env = claw_env.env
    claw_env.server.script(text("I will remember the wombat."), text("ok"), text("ok"), text("ok"))
    claw(env, "agent", "-s", "zoo", "-m", "my favourite animal is the wombat")
    for key in ("one", "two", "three"):
        claw(env, "agent", "-s", key, "-m", f"talk in {key}")
    rows = json.loads(claw(env, "sessions", "search", "wombat", "--json").stdout)
    assert [(r["sessionKey"], r["role"]) for r in rows] == [("agent:main:zoo", "assistant"), ("agent:main:zoo", "user")]
    shown = claw(env, "sessions", "search", "wombat").stdout
    assert "agent:main:zoo" in shown and "my favourite animal is the wombat" in shown

    claw(env, "sessions", "reset", "zoo")
    rows = json.loads(claw(env, "sessions", "search", "WOMBAT", "--json").stdout)
    assert {r["archived"] for r in rows} == {True} and len(rows) == 2
    assert "(archived)" in claw(env, "sessions", "search", "wombat").stdout
    assert json.loads(claw(env, "sessions", "search", "wombat", "--since", "2999-01-01", "--json").stdout) == []
    assert len(json.loads(claw(env, "sessions", "search", "wombat", "--since", "1h", "--json").stdout)) == 2
    assert "No messages match" in claw(env, "sessions", "search", "platypus").stdout

    reindexed = json.loads(claw(env, "sessions", "reindex", "--json").stdout)
    assert reindexed["messages"] == 8 and reindexed["archived"] == 1
    assert json.loads(claw(env, "sessions", "search", "wombat", "--json").stdout) == rows

    bad = run_claw(env, "sessions", "search", "x", "--since", "yesterday-ish")
    assert bad.returncode == 2 and "--since" in bad.stderr and "Traceback" not in bad.stderr


def test_fork_tree_and_export_formats(claw_env: ClawEnv, tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = claw_env.env
    claw_env.server.script(tool_call("read", {"path": "SOUL.md"}), text("first"), text("second"))
    claw(env, "agent", "-m", "read your soul")
    claw(env, "agent", "-m", "and then?")
    done = claw(env, "sessions", "fork", "main", "--at", "4", "--as", "other-way", "--json")
    row = json.loads(done.stdout)
    assert row["key"] == "agent:main:other-way" and row["messages"] == 4
    tree = claw(env, "sessions", "ls", "--tree", "--wide").stdout
    assert "└─ other-way (fork at message 4)" in tree
    forest = json.loads(claw(env, "sessions", "ls", "--tree", "--json").stdout)
    assert [c["key"] for c in forest[0]["children"]] == ["agent:main:other-way"]
    main = json.loads(claw(env, "sessions", "ls", "--json").stdout)
    assert {r["key"]: r["messages"] for r in main}["agent:main:main"] == 6  # untouched

    refused = run_claw(env, "sessions", "fork", "main", "--at", "2")
    assert refused.returncode == 2 and "inside a turn" in refused.stderr

    page = tmp_path / "main.html"
    claw(env, "sessions", "export", "main", "--format", "html", "-o", str(page))
    summaries: list[str] = []

    class Page(HTMLParser):
        def handle_data(self, data: str) -> None:
            if self.lasttag == "summary":
                summaries.append(data)

    Page().feed(page.read_text())
    assert sum(s.startswith("Tool call: read") for s in summaries) == 1
    assert sum(s.startswith(("Tool result: read", "Tool error: read")) for s in summaries) == 1
    lines = claw(env, "sessions", "export", "main", "--format", "jsonl").stdout.splitlines()
    assert [json.loads(line).get("role") for line in lines if "role" in json.loads(line)][:2] == ["user", "assistant"]
    assert claw(env, "sessions", "export", "main").stdout.startswith("# Session agent:main:main")
    wrong = run_claw(env, "sessions", "export", "main", "--format", "pdf")
    assert wrong.returncode == 2 and "md, jsonl or html" in wrong.stderr


def test_agent_continue_picks_the_most_recent_conversation(claw_env: ClawEnv) -> None:
    env = claw_env.env
    claw_env.server.script(*(text(f"r{n}") for n in range(6)))
    claw(env, "agent", "-m", "in main")
    claw(env, "agent", "-s", "work", "-m", "in work")
    claw(env, "agent", "-s", "hobby", "-m", "in hobby")
    claw(env, "agent", "-s", "work", "-m", "work again")  # another client, the newest
    continued = claw(env, "agent", "-c", "-m", "continuing")
    assert continued.stderr.splitlines()[0] == "continuing agent:main:work"  # never without saying which
    assert claw_env.server.chat_requests[-1].body["messages"][-2]["content"] == "r3"
    rows = {r["key"]: r["messages"] for r in json.loads(claw(env, "sessions", "ls", "--json").stdout)}
    assert rows == {"agent:main:work": 6, "agent:main:hobby": 2, "agent:main:main": 2}
    both = run_claw(env, "agent", "-c", "-s", "main", "-m", "x")
    assert both.returncode == 2 and "--continue" in both.stderr
