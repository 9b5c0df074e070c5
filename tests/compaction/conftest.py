"""Compaction fixtures: a gateway with a small context window, a model that enforces it, seeded history."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from claw.client.local import LocalClient
from claw.paths import Paths
from claw.store.sessions import SessionStore
from tests.support.fixtures import ClawEnv
from tests.support.model_server import RecordedRequest, Reply, estimate_tokens, overflow, text

KEY = "agent:main:main"
SUMMARY_MARK = "You compact conversations"
FLUSH_MARK = "[Memory flush]"


def config(window: int, *, reserve: int = 1000, keep: int = 1000, flush: bool = False, soft: int = 4000) -> str:
    """config.toml for the tests: the window of `test-model`, the reserve, what compaction keeps."""
    return (
        f'[models."test-model"]\ncontextWindow = {window}\n'
        f"[agents.defaults]\nreserveTokens = {reserve}\n"
        f"[agents.defaults.compaction]\nkeepRecentTokens = {keep}\n"
        f"[agents.defaults.compaction.memoryFlush]\nenabled = {'true' if flush else 'false'}\n"
        f"softThresholdTokens = {soft}\n"
        "[memory]\nenabled = false\n"
    )


@dataclass
class Model:
    """A scripted model that answers summary requests, flush turns and ordinary turns separately,
    and refuses (context overflow) any prompt larger than its window, as a real endpoint would."""

    window: int
    replies: list[Reply] = field(default_factory=list)
    flush_replies: list[str] = field(default_factory=list)
    summaries: list[RecordedRequest] = field(default_factory=list)
    flushes: list[RecordedRequest] = field(default_factory=list)
    turns: list[RecordedRequest] = field(default_factory=list)
    overflows: int = 0

    def __call__(self, request: RecordedRequest) -> Reply:
        messages = request.messages
        if estimate_tokens(messages) + estimate_tokens(request.tools) > self.window:
            self.overflows += 1
            return overflow()
        if messages and str(messages[0].get("content", "")).startswith(SUMMARY_MARK):
            self.summaries.append(request)
            return text(f"SUMMARY {len(self.summaries)}: the user and assistant talked about filler topics.")
        if messages and FLUSH_MARK in str(messages[-1].get("content", "")):
            self.flushes.append(request)
            return text(self.flush_replies.pop(0) if self.flush_replies else "NO_REPLY")
        self.turns.append(request)
        return self.replies.pop(0) if self.replies else text("ok")


@pytest.fixture
def make_client(claw_env: ClawEnv, local_clients: Callable[[], LocalClient]) -> Callable[[], LocalClient]:
    """Clients over fresh in-process gateways (see `local_clients`)."""
    (claw_env.home / "workspace").mkdir(exist_ok=True)
    (claw_env.home / "workspace" / "SOUL.md").write_text("You are Testy.\n", encoding="utf-8")
    return local_clients


def write_config(env: ClawEnv, text_: str) -> None:
    (env.home / "config.toml").write_text(text_, encoding="utf-8")


def seed(env: ClawEnv, entries: list[dict[str, Any]], key: str = KEY) -> list[dict[str, Any]]:
    """Append `entries` to the session's transcript, as earlier turns would have; returns them as written."""
    store = SessionStore(Paths.from_env().sessions_dir("main"))
    store.get_or_create(key)
    transcript = store.transcript(key)
    written = [transcript.append(entry) for entry in entries]
    store.record_turn(key, preview="seeded")
    store.close()
    return written


def filler_turns(count: int, chars: int = 400) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n in range(count):
        out.append({"role": "user", "content": f"question {n}: " + "q" * chars})
        out.append({"role": "assistant", "content": f"answer {n}: " + "a" * chars})
    return out


def tool_exchange(call_id: str, result_chars: int, args_chars: int = 40) -> list[dict[str, Any]]:
    """A turn with one tool call and its (long) result."""
    args = json.dumps({"path": "notes/" + "n" * args_chars + ".txt"})
    return [
        {"role": "user", "content": "please read the notes file"},
        {"role": "assistant", "content": "", "toolCalls": [{"id": call_id, "name": "read", "arguments": args}]},
        {"role": "tool", "toolCallId": call_id, "name": "read", "content": "RESULT-START " + "r" * result_chars},
        {"role": "assistant", "content": "done reading"},
    ]


def assert_tool_pairs_whole(messages: list[dict[str, Any]]) -> None:
    """Every tool call is followed by its results, and every tool result follows its call."""
    open_calls: list[str] = []
    for m in messages:
        if m["role"] == "tool":
            assert m["tool_call_id"] in open_calls, f"orphan tool result {m['tool_call_id']}"
            open_calls.remove(m["tool_call_id"])
            continue
        assert not open_calls, f"tool call(s) {open_calls} without results"
        open_calls = [c["id"] for c in m.get("tool_calls") or ()]
    assert not open_calls


def transcript_entries(env: ClawEnv, key: str = KEY) -> list[dict[str, Any]]:
    store = SessionStore(Paths.from_env().sessions_dir("main"))
    try:
        return store.transcript(key).read()
    finally:
        store.close()


def lifecycle(events: list[Any], phase: str) -> list[dict[str, Any]]:
    return [e.data for e in events if e.stream == "lifecycle" and e.data.get("phase") == phase]


def home(env: ClawEnv) -> Path:
    return env.home
