"""The failed-auth limiter on a real gateway server: it slows wrong credentials and never locks the owner out.

The security finding this answers: ten `GET /v1/models` without an Authorization header from 127.0.0.1 (what an
`<img>` tag on any web page sends) used to lock every loopback client out for 60 s, the right token and correctly
signed webhooks included, again and again.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from claw.channels.webhook.adapter import sign
from claw.client.remote import RemoteClient
from claw.server.auth import AuthLimiter
from tests.server.conftest import TOKEN, MakeServed, Served, connect_frame, open_wire, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

HOOK_SECRET = "hook-secret-2b7c9d1e3f5a7b9c"
HOOK_CONFIG = f'[channels.webhook.hooks.ci]\nsecret = "{HOOK_SECRET}"\n'


def _http(url: str, *, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (loopback)
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


async def _get(served: Served, path: str = "/v1/models", **headers: str) -> tuple[int, dict[str, str], bytes]:
    return await asyncio.to_thread(_http, served.http_url + path, headers=headers)


async def _hook(served: Served, event: str, *, signature: str | None = None, **headers: str) -> tuple[int, Any]:
    body = json.dumps({"eventId": event, "conversationId": "c1", "senderId": "s1", "text": "hello"}).encode()
    stamp = str(int(time.time()))
    signed = {"Content-Type": "application/json", "X-Claw-Timestamp": stamp,
              "X-Claw-Signature": sign(HOOK_SECRET, stamp, body) if signature is None else signature}  # fmt: skip
    status, _, raw = await asyncio.to_thread(
        _http, served.http_url + "/hooks/ci", method="POST", body=body, headers={**signed, **headers}
    )
    return status, json.loads(raw)


async def _connect_status(served: Served, token: str | None) -> str:
    """The error's `details.code` (or "ok") a raw WebSocket `connect` with `token` gets."""
    wire = await open_wire(served.url, handshake=False)
    await wire.send(connect_frame(token))
    reply = await wire.res("c1")
    await wire.close()
    return "ok" if reply["ok"] else reply["error"]["details"]["code"]


async def _upgrade_status(served: Served, headers: dict[str, str]) -> int:
    """The HTTP status a WebSocket upgrade with `headers` is refused with."""
    with pytest.raises(InvalidStatus) as refused:
        await connect(served.url, additional_headers=headers, open_timeout=10)
    return refused.value.response.status_code


async def _owner_gets_through(claw_env: ClawEnv, served: Served, event: str) -> None:
    """The owner's clients all work: `claw agent` over WebSocket, the HTTP API, a signed webhook."""
    claw_env.server.script(text("still here"))
    client = await RemoteClient.connect(served.url, TOKEN)
    try:
        handle = await client.run("are you there?")
        assert handle.run_id is not None
        events = [e async for e in client.events(handle.run_id)]
        assert events[-1].data["phase"] == "end" and events[-1].data["text"] == "still here"
    finally:
        await client.close()
    status, _, body = await _get(served, Authorization=f"Bearer {TOKEN}")
    assert status == 200 and json.loads(body)["data"][0]["id"] == "claw/main"
    assert await _hook(served, event) == (200, {"ok": True, "status": "accepted"})


async def test_credential_less_requests_never_lock_out_the_owner(
    claw_env: ClawEnv, home: Path, make_served: MakeServed
) -> None:
    """The finding's reproduction, with the default limiter (10 failures lock)."""
    write_config(home, HOOK_CONFIG)
    served = await make_served(limiter=AuthLimiter())
    for _ in range(25):  # an <img src="http://127.0.0.1:18789/v1/models"> reloaded, from a page or a script
        status, headers, _ = await _get(served)
        assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
    for _ in range(12):  # the same on the WebSocket: a connect without a token, and an unsigned webhook
        assert await _connect_status(served, None) == "AUTH_TOKEN_MISSING"
        assert await _hook(served, "never", signature="") == (401, {"ok": False, "error": "missing signature"})
    await _owner_gets_through(claw_env, served, "evt-1")
    assert served.server.settings.limiter.tracked() == (0, 0)  # nothing was even remembered


async def test_a_wrong_token_flood_locks_out_wrong_tokens_but_never_the_right_one(
    claw_env: ClawEnv, home: Path, make_served: MakeServed
) -> None:
    write_config(home, HOOK_CONFIG)
    served = await make_served(limiter=AuthLimiter(max_failures=3, max_address_failures=8))
    for _ in range(3):  # one stale token retried: three 401s, then that token is refused 429
        assert (await _get(served, Authorization="Bearer stale-token"))[0] == 401
    status, headers, body = await _get(served, Authorization="Bearer stale-token")
    assert status == 429 and int(headers["Retry-After"]) > 0
    assert json.loads(body)["error"]["type"] == "rate_limit_error"
    await _owner_gets_through(claw_env, served, "evt-1")
    # A spray of different guesses from the same address: each is new, so the address's count locks instead.
    for n in range(5):  # 3 + 5 = 8 counted failures from 127.0.0.1
        assert await _connect_status(served, f"guess-{n}") == "AUTH_TOKEN_MISMATCH"
    assert await _connect_status(served, "guess-new") == "AUTH_RATE_LIMITED"
    assert (await _get(served, Authorization="Bearer guess-new-2"))[0] == 429
    assert await _upgrade_status(served, {"Authorization": "Bearer guess-new-3"}) == 429
    await _owner_gets_through(claw_env, served, "evt-2")  # the right token and a valid signature: never refused
    assert await _connect_status(served, TOKEN) == "ok"


async def test_bad_webhook_signatures_count_but_a_valid_one_always_passes(
    claw_env: ClawEnv, home: Path, make_served: MakeServed
) -> None:
    write_config(home, HOOK_CONFIG)
    served = await make_served(limiter=AuthLimiter(max_failures=2, max_address_failures=4))
    replayed = "sha256=" + "0" * 64
    for _ in range(2):
        assert await _hook(served, "forged", signature=replayed) == (401, {"ok": False, "error": "invalid signature"})
    status, body = await _hook(served, "forged", signature=replayed)
    assert status == 429 and body["error"]["type"] == "rate_limit_error"
    assert await _hook(served, "evt-1") == (200, {"ok": True, "status": "accepted"})
    for n in (1, 2):  # different forgeries: the address's count (2 + 2 = 4) locks
        forged = f"sha256={n:064x}"
        assert await _hook(served, "forged", signature=forged) == (401, {"ok": False, "error": "invalid signature"})
    assert (await _hook(served, "forged", signature="sha256=" + "f" * 64))[0] == 429
    assert (await _hook(served, "forged", signature="not-even-a-signature"))[0] == 429
    await _owner_gets_through(claw_env, served, "evt-2")
    # A webhook's bad signatures and a bad gateway token share the address's count: the guess is refused too.
    assert (await _get(served, Authorization="Bearer another-guess"))[0] == 429


async def test_cross_site_browser_requests_are_refused_before_anything_is_counted(make_served: MakeServed) -> None:
    served = await make_served(
        allowed_origins=("http://localhost:5173",), limiter=AuthLimiter(max_failures=1, max_address_failures=1)
    )
    page_requests = [
        {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"},  # <img>, no Origin
        {"Sec-Fetch-Site": "same-site"},  # a page on another port of localhost is the same site
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
    ]
    for headers in page_requests:
        for credential in ({}, {"Authorization": "Bearer guess-from-a-page"}):
            status, _, body = await _get(served, **headers, **credential)
            assert status == 403, headers
            assert json.loads(body)["error"]["type"] == "forbidden"
        assert await _upgrade_status(served, headers) == 403
    assert served.server.settings.limiter.tracked() == (0, 0)
    # Nothing was counted: the first wrong token from this address is the one that locks it (max_failures=1).
    assert (await _get(served, Authorization="Bearer guess-from-a-page"))[0] == 401
    assert (await _get(served, Authorization="Bearer guess-from-a-page"))[0] == 429
    # A listed Origin passes whatever Sec-Fetch-Site says; so do typed-in and same-origin requests.
    allowed = {"Origin": "http://localhost:5173", "Sec-Fetch-Site": "same-site", "Authorization": f"Bearer {TOKEN}"}
    assert (await _get(served, **allowed))[0] == 200
    for site in ("none", "same-origin"):
        assert (await _get(served, **{"Sec-Fetch-Site": site, "Authorization": f"Bearer {TOKEN}"}))[0] == 200
    assert (await _get(served, "/health", **page_requests[0]))[0] == 200  # /health stays open, as before
