"""A server that reports far fewer prompt tokens than claw sent gets one warning per session: a run event, a
line on `claw agent`'s stderr, and a note in `/context`; a server that counts what it got never does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from claw.agent.context import AssembledContext, PromptSection
from claw.agent.truncation_check import sent_tokens
from claw.providers.truncation import looks_truncated
from tests.support.fixtures import ClawEnv
from tests.support.model_server import RecordedRequest, Reply, Usage, text
from tests.support.processes import run_claw

KEY = "agent:main:main"
REF = "llamacpp/test-model"  # a local server: only those cut prompts silently
LONG = "Please keep all of this in mind. " * 300  # ~10,000 chars: ~2,500 tokens on top of the system prompt


def cutting(keep: int = 512) -> Callable[[RecordedRequest], Reply]:
    """A server that kept only `keep` tokens of each prompt and says so in its usage, as Ollama past num_ctx."""
    return lambda request: text("ok", usage=Usage(keep, 1))


def local(env: ClawEnv, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Call the scripted server as a llama.cpp server; the environment for a `claw` subprocess too."""
    (env.home / "config.toml").write_text(f'[providers.llamacpp]\nbaseUrl = "{env.server.base_url}"\n', "utf-8")
    monkeypatch.setenv("CLAW_MODEL", REF)
    return {**env.env, "CLAW_MODEL": REF}


def test_the_rule_needs_both_a_share_and_a_gap() -> None:
    assert looks_truncated(2048, 9000) and not looks_truncated(0, 9000)  # 0: the server did not say
    assert not looks_truncated(400, 600)  # a short prompt: template overhead, not a cut
    assert not looks_truncated(7000, 9000)  # a tokenizer that differs from ~4 chars a token
    prompt = AssembledContext([], sections=(PromptSection("base", 100), PromptSection("reserve", 8000)), window=8192)
    assert sent_tokens(prompt) == 100


async def _events(client: Any, message: str) -> list[Any]:
    handle = await client.run(message, session_key=KEY)
    return [event async for event in client.events(handle.run_id)]


def _warnings(events: list[Any]) -> list[dict[str, Any]]:
    return [e.data for e in events if e.stream == "lifecycle" and e.data.get("phase") == "warning"]


async def test_one_warning_event_per_session(
    claw_env: ClawEnv, local_clients: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    local(claw_env, monkeypatch)
    claw_env.server.default = cutting()
    client = local_clients()
    first = _warnings(await _events(client, LONG))
    again = _warnings(await _events(client, LONG))
    assert again == [] and len(first) == 1
    (warning,) = first
    assert warning["kind"] == "truncation" and warning["reportedTokens"] == 512 and warning["model"] == REF
    assert warning["estimatedTokens"] > 2500 and warning["window"] == 32_000
    assert warning["message"].startswith(f"{REF}'s server counted 512 prompt tokens where claw sent ~")
    assert warning["message"].endswith(f"Check it: claw doctor model {REF}")
    report = await client.call("sessions.context", sessionKey=KEY)
    assert report["promptTruncated"]["reportedTokens"] == 512


async def test_a_server_that_counts_the_whole_prompt_is_never_warned_about(
    claw_env: ClawEnv, local_clients: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    local(claw_env, monkeypatch)
    client = local_clients()  # the scripted server's usage: its own estimate of all it received
    assert _warnings(await _events(client, LONG)) == []
    assert (await client.call("sessions.context", sessionKey=KEY))["promptTruncated"] is None


async def test_a_hosted_endpoint_is_never_warned_about(claw_env: ClawEnv, local_clients: Callable[[], Any]) -> None:
    claw_env.server.default = cutting()  # test-model through OPENAI_BASE_URL: provider openai
    assert _warnings(await _events(local_clients(), LONG)) == []


def test_the_terminal_says_it_once_and_context_keeps_it(claw_env: ClawEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    env = local(claw_env, monkeypatch)
    claw_env.server.default = cutting()
    first = run_claw(env, "agent", "-m", LONG)
    second = run_claw(env, "agent", "-m", LONG)  # another process: the session's note is the mark
    context = run_claw(env, "agent", "-m", "/context")
    assert first.returncode == second.returncode == context.returncode == 0, first.stderr + second.stderr
    said = [line for line in first.stderr.splitlines() if "prompt tokens where claw sent" in line]
    assert len(said) == 1 and said[0].startswith(f"! {REF}'s server counted 512 prompt tokens")
    assert first.stdout.strip() == "ok" and "prompt tokens where claw sent" not in second.stderr
    assert f"Warning: {REF}'s server counted 512 prompt tokens" in context.stdout
