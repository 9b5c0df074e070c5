"""The OpenAI-compatible HTTP API on the gateway's port, driven by the official `openai` client."""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.request
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI

from tests.server.conftest import TOKEN, MakeServed, Served, write_config
from tests.support.fixtures import API_KEY, ClawEnv
from tests.support.model_server import error, text


def _client(served: Served, key: str = TOKEN) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{served.http_url}/v1", api_key=key, max_retries=0, timeout=30)


def _http(url: str, *, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


async def test_health_needs_no_auth_and_says_nothing_more(served: Served) -> None:
    status, _, body = await asyncio.to_thread(_http, f"{served.http_url}/health")
    assert status == 200 and json.loads(body) == {"ok": True}


async def test_models_lists_one_model_per_agent(home: Any, make_served: MakeServed) -> None:
    write_config(home, "[agents.list.work]\n")
    served = await make_served()
    async with _client(served) as client:
        models = await client.models.list()
        assert [m.id for m in models.data] == ["claw/main", "claw/work"]
        assert (await client.models.retrieve("claw/work")).id == "claw/work"


async def test_non_stream_completion(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("Forty-two."))
    async with _client(served) as client:
        raw = await client.chat.completions.with_raw_response.create(
            model="claw/main",
            messages=[{"role": "system", "content": "ignored"}, {"role": "user", "content": "the answer?"}],
        )
    reply = raw.parse()
    assert reply.object == "chat.completion" and reply.model == "claw/main"
    assert reply.choices[0].message.content == "Forty-two." and reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None and reply.usage.completion_tokens > 0
    assert claw_env.server.last_request().messages[-1] == {"role": "user", "content": "the answer?"}
    session = raw.headers["x-claw-session"]
    assert session.startswith("agent:main:http:")  # no user, no header: a fresh session per call
    entry = served.gateway.sessions("main").get(session)
    assert entry is not None and entry.message_count == 2


async def test_stream_completion_with_usage(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("one two three"))
    async with _client(served) as client:
        stream = await client.chat.completions.create(
            model="claw/main",
            messages=[{"role": "user", "content": "count"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = [c async for c in stream]
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == "one two three"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    assert len({c.id for c in chunks}) == 1


async def test_user_field_and_session_header_pick_the_session(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("a"), text("b"), text("c"))
    async with _client(served) as client:
        for word in ("first", "second"):
            await client.chat.completions.create(
                model="claw/main", messages=[{"role": "user", "content": word}], user="Ada Lovelace"
            )
        await client.chat.completions.create(
            model="claw/main", messages=[{"role": "user", "content": "third"}], extra_headers={"X-Claw-Session": "desk"}
        )
    rows = {r.session_key: r for r in served.gateway.sessions("main").list()}
    ada = [key for key in rows if key.startswith("agent:main:http:direct:ada-lovelace-")]
    assert len(ada) == 1 and rows[ada[0]].message_count == 4  # the same `user` continues one session
    assert rows["agent:main:desk"].message_count == 2
    # The second turn saw the first one as history.
    assert [m["content"] for m in claw_env.server.chat_requests[1].messages if m["role"] == "user"] == [
        "first",
        "second",
    ]


async def test_auth_failures_are_refused_alike_and_never_logged(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with _client(served, key="wrong-bearer-token-1") as client:
        with pytest.raises(openai.AuthenticationError) as wrong:
            await client.models.list()
    status, headers, body = await asyncio.to_thread(_http, f"{served.http_url}/v1/models")
    assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
    assert json.loads(body) == wrong.value.body or json.loads(body)["error"] == wrong.value.body
    assert "wrong-bearer-token-1" not in caplog.text and TOKEN not in caplog.text


async def test_failed_http_auth_is_rate_limited_but_never_the_right_token(served: Served) -> None:
    for _ in range(5):
        status, _, _ = await asyncio.to_thread(
            _http, f"{served.http_url}/v1/models", headers={"Authorization": "Bearer guess"}
        )
        assert status == 401
    async with _client(served, key="guess") as client:
        with pytest.raises(openai.RateLimitError) as limited:
            await client.models.list()
    assert int(limited.value.response.headers["retry-after"]) > 0
    async with _client(served) as client:  # the right token from the same address still passes
        assert [m.id for m in (await client.models.list()).data] == ["claw/main"]


async def test_bad_requests_get_openai_style_errors(served: Served) -> None:
    bad: list[tuple[dict[str, Any], str]] = [
        ({"model": "claw/main", "messages": []}, "messages"),
        ({"model": "claw/main", "messages": [{"role": "wizard", "content": "x"}]}, "messages.0.role"),
        ({"model": "claw/main", "messages": [{"role": "user", "content": "x"}], "max_tokens": -1}, "max_tokens"),
        ({"model": "claw/main", "messages": [{"role": "user", "content": "x"}], "stream": "yes"}, "stream"),
        ({"model": "claw/main", "messages": [{"role": "assistant", "content": "x"}]}, "messages"),
    ]
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    for body, param in bad:
        status, _, raw = await asyncio.to_thread(
            _http,
            f"{served.http_url}/v1/chat/completions",
            method="POST",
            body=json.dumps(body).encode(),
            headers=headers,
        )
        assert status == 400, body
        err = json.loads(raw)["error"]
        assert err["type"] == "invalid_request_error" and err["message"]
        assert err["param"] == param or param in err["message"], err
    for raw_body in (b"{not json", b'{"model": NaN}'):
        status, _, raw = await asyncio.to_thread(
            _http, f"{served.http_url}/v1/chat/completions", method="POST", body=raw_body, headers=headers
        )
        assert status == 400 and "invalid JSON body" in json.loads(raw)["error"]["message"]
    async with _client(served) as client:
        with pytest.raises(openai.NotFoundError) as unknown:
            await client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    assert unknown.value.code == "model_not_found"


async def test_body_limit(make_served: MakeServed) -> None:
    served = await make_served(max_body_bytes=4096)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    body = json.dumps({"model": "claw/main", "messages": [{"role": "user", "content": "x" * 10_000}]}).encode()
    status, _, raw = await asyncio.to_thread(
        _http, f"{served.http_url}/v1/chat/completions", method="POST", body=body, headers=headers
    )
    assert status == 413 and "too large" in json.loads(raw)["error"]["message"]


async def test_run_failure_is_an_error_the_client_does_not_retry(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(error(400, "the model refused"))
    async with AsyncOpenAI(base_url=f"{served.http_url}/v1", api_key=TOKEN, max_retries=2) as client:
        with pytest.raises(openai.APIStatusError) as failed:
            await client.chat.completions.create(model="claw/main", messages=[{"role": "user", "content": "x"}])
    assert failed.value.status_code == 502 and "the model refused" in str(failed.value)
    assert len(claw_env.server.chat_requests) == 1  # x-should-retry: false kept the client from re-running it
    assert API_KEY not in str(failed.value.body)


async def test_slash_command_answers_as_a_completion(served: Served) -> None:
    async with _client(served) as client:
        reply = await client.chat.completions.create(model="claw", messages=[{"role": "user", "content": "/help"}])
    assert "/new" in (reply.choices[0].message.content or "")


async def test_browser_origin_refused_on_http_too(served: Served) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "Origin": "https://evil.example"}
    status, _, body = await asyncio.to_thread(_http, f"{served.http_url}/v1/models", headers=headers)
    assert status == 403 and b"origin not allowed" in body
