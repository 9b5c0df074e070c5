"""Session keys that arrive over HTTP (`X-Claw-Session`, the OpenAI `user` field) are checked: a key claw
would not make itself is a 400 in OpenAI's error shape, and no turn runs."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from claw.vocab.session_keys import check_session_key
from tests.server.conftest import TOKEN, Served
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text


def _complete(served: Served, headers: dict[str, str], **body: Any) -> tuple[int, dict[str, str], Any]:
    payload = {"model": "claw/main", "messages": [{"role": "user", "content": "hello"}], **body}
    request = urllib.request.Request(
        f"{served.http_url}/v1/chat/completions",
        data=json.dumps(payload).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


async def test_a_path_as_session_header_is_refused(claw_env: ClawEnv, served: Served) -> None:
    status, _, body = await asyncio.to_thread(_complete, served, {"X-Claw-Session": "../../etc/passwd"})
    assert status == 400
    assert body == {
        "error": {
            "message": "invalid X-Claw-Session header: 'agent:main:../../etc/passwd' contains '/'; "
            "use lowercase letters, digits, ':' and _ . @ + = -",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_session",
        }
    }
    assert claw_env.server.chat_requests == []  # no turn ran
    assert served.gateway.sessions("main").list() == []  # and nothing was stored


async def test_a_5000_character_session_header_is_refused(claw_env: ClawEnv, served: Served) -> None:
    status, _, body = await asyncio.to_thread(_complete, served, {"X-Claw-Session": "a" * 5000})
    assert status == 400
    message = body["error"]["message"]
    assert message.startswith("invalid X-Claw-Session header: 'agent:main:aaaa")
    assert message.endswith("is 5,011 characters long; the limit is 256") and len(message) < 200
    assert claw_env.server.chat_requests == [] and served.gateway.sessions("main").list() == []


async def test_a_normal_session_header_still_works(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("hi there"), text("again"))
    status, headers, body = await asyncio.to_thread(_complete, served, {"X-Claw-Session": "Desk.Notes@ada"})
    assert status == 200, body
    assert headers["X-Claw-Session"] == "agent:main:desk.notes@ada"
    assert body["choices"][0]["message"]["content"] == "hi there"
    status, headers, _ = await asyncio.to_thread(_complete, served, {"X-Claw-Session": "agent:main:desk.notes@ada"})
    assert status == 200 and served.gateway.sessions("main").get("agent:main:desk.notes@ada").message_count == 4


async def test_any_user_field_makes_a_valid_session(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("one"), text("two"))
    for user in ("../../etc/passwd", "Ünïcode " * 32):  # 256 characters, none of them a key's
        status, headers, body = await asyncio.to_thread(_complete, served, {}, user=user)
        assert status == 200, body
        key = headers["X-Claw-Session"]
        assert key.startswith("agent:main:http:direct:") and check_session_key(key) == key
