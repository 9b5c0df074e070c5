"""Every error path of the WebSocket protocol: refused handshakes close with a reason; bad frames
after the handshake get an error `res` and the connection (and the gateway) keep serving."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.server.conftest import TOKEN, MakeServed, Served, Wire, connect_frame, open_wire


async def _closed(wire: Wire) -> tuple[int | None, str]:
    """Read until the server closes; return its close code and reason."""
    with pytest.raises(ConnectionClosed):
        while True:
            await wire.recv()
    return wire.ws.close_code, wire.ws.close_reason or ""


async def test_first_frame_must_be_connect(served: Served) -> None:
    wire = await open_wire(served.url, handshake=False)
    await wire.send({"type": "req", "id": "1", "method": "health", "params": {}})
    reply = await wire.res("1")
    assert reply["ok"] is False and reply["error"]["code"] == "INVALID_REQUEST"
    assert reply["error"]["message"] == "first request must be connect"
    assert await _closed(wire) == (1008, "first request must be connect")


async def test_not_json_first_frame_closes(served: Served) -> None:
    wire = await open_wire(served.url, handshake=False)
    await wire.send("hello")
    reply = await wire.res(None)
    assert reply["error"]["code"] == "INVALID_REQUEST" and "not valid JSON" in reply["error"]["message"]
    assert await _closed(wire) == (1008, "invalid request frame")


async def test_binary_first_frame_closes(served: Served) -> None:
    wire = await open_wire(served.url, handshake=False)
    await wire.send(b'{"type":"req"}')
    assert await _closed(wire) == (1003, "text frames only")


async def test_oversize_frame_before_auth_closes_1009(served: Served) -> None:
    wire = await open_wire(served.url, handshake=False)
    frame = connect_frame()
    frame["params"]["client"]["pad"] = "x" * (100 * 1024)
    await wire.send(frame)
    code, reason = await _closed(wire)
    assert code == 1009 and "65536 bytes before connect" in reason


async def test_missing_and_wrong_tokens_are_refused_with_openclaw_codes(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    answers = {}
    for token in ("wrong-token-value-123", None):
        wire = await open_wire(served.url, handshake=False)
        await wire.send(connect_frame(token))
        reply = await wire.res("c1")
        answers[token] = reply["error"]
        assert await _closed(wire) == (1008, "unauthorized")
    assert answers["wrong-token-value-123"]["code"] == answers[None]["code"] == "INVALID_REQUEST"
    assert answers["wrong-token-value-123"]["details"] == {"code": "AUTH_TOKEN_MISMATCH"}
    assert answers[None]["details"] == {"code": "AUTH_TOKEN_MISSING"}
    assert answers[None]["message"].startswith("unauthorized: gateway token missing")
    assert "refused connection" in caplog.text
    assert TOKEN not in caplog.text and "wrong-token-value-123" not in caplog.text


async def test_failed_auth_is_rate_limited_even_on_loopback_but_never_the_right_token(served: Served) -> None:
    early = await open_wire(served.url, handshake=False)  # upgraded before the lockout
    for _ in range(5):  # the fixture's limiter allows 5 failures of one token
        wire = await open_wire(served.url, handshake=False)
        await wire.send(connect_frame("nope-nope-nope"))
        assert (await wire.res("c1"))["error"]["details"]["code"] == "AUTH_TOKEN_MISMATCH"
    # Locked out: that wrong token is answered in band, and refused on the upgrade too.
    await early.send(connect_frame("nope-nope-nope"))
    reply = await early.res("c1")
    assert reply["error"]["details"] == {"code": "AUTH_RATE_LIMITED"}
    assert reply["error"]["retryable"] is True and reply["error"]["retryAfterMs"] > 0
    assert await _closed(early) == (1008, "rate limited: too many failed auth attempts")
    with pytest.raises(InvalidStatus) as refused:
        await connect(served.url, additional_headers={"Authorization": "Bearer nope-nope-nope"}, open_timeout=10)
    assert refused.value.response.status_code == 429
    assert int(refused.value.response.headers["Retry-After"]) > 0
    # The right token from the same address is never refused (tests/server/test_auth_lockout.py has more).
    owner = await open_wire(served.url, additional_headers={"Authorization": f"Bearer {TOKEN}"})
    assert (await owner.call("health"))["ok"] is True
    await owner.close()


async def test_origin_must_be_on_the_allowlist(make_served: MakeServed) -> None:
    served = await make_served(allowed_origins=("http://localhost:5173",))
    for origin in ("https://evil.example", "http://localhost:5174", "null"):
        with pytest.raises(InvalidStatus) as refused:
            await connect(served.url, origin=origin, open_timeout=10)  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403
        assert b"origin not allowed" in refused.value.response.body
    allowed = await open_wire(served.url, origin="http://localhost:5173")  # type: ignore[arg-type]
    assert (await allowed.call("health"))["ok"] is True
    no_origin = await open_wire(served.url)  # CLI clients send none; they still need the token
    assert (await no_origin.call("health"))["ok"] is True
    await allowed.close()
    await no_origin.close()


async def test_handshake_timeout_and_protocol_mismatch(make_served: MakeServed) -> None:
    served = await make_served(handshake_timeout_s=0.3)
    idle = await open_wire(served.url, handshake=False)
    assert await _closed(idle) == (1008, "handshake timeout: the first frame must be connect")
    wire = await open_wire(served.url, handshake=False)
    await wire.send(connect_frame(minProtocol=1, maxProtocol=3))  # claw's old protocol 1, OpenClaw's v3 node
    refused = (await wire.res("c1"))["error"]
    assert refused["code"] == "INVALID_REQUEST"
    assert refused["details"] == {
        "code": "PROTOCOL_MISMATCH",
        "clientMinProtocol": 1,
        "clientMaxProtocol": 3,
        "expectedProtocol": 4,
    }
    assert "this gateway speaks protocol 4, the client 1..3" in refused["message"]
    assert await _closed(wire) == (1002, "protocol mismatch")


async def test_connect_params_are_validated(served: Served) -> None:
    wire = await open_wire(served.url, handshake=False)
    params = {"minProtocol": 4, "maxProtocol": 4, "auth": {"token": TOKEN}}
    await wire.send({"type": "req", "id": "c", "method": "connect", "params": params})
    reply = await wire.res("c")
    assert reply["error"]["code"] == "INVALID_REQUEST"
    assert reply["error"]["message"].startswith("invalid connect params")
    assert "client" in reply["error"]["message"]
    assert await _closed(wire) == (1008, "invalid connect params")


BAD_FRAMES: list[tuple[str, str | bytes, str | None, str]] = [
    # (what, frame, id echoed, a fragment of the error message)
    ("not JSON", "hello", None, "not valid JSON"),
    ("JSON array", "[1, 2]", None, "expected a JSON object, got an array"),
    ("JSON string", '"req"', None, "got a string"),
    ("JSON null", "null", None, "got null"),
    ("JSON number", "42", None, "got a number"),
    ("wrong type", '{"type": "res", "id": "b1", "method": "health"}', "b1", "type"),
    ("missing type", '{"id": "b2", "method": "health"}', "b2", "type: Field required"),
    ("missing id", '{"type": "req", "method": "health"}', None, "id: Field required"),
    ("null id", '{"type": "req", "id": null, "method": "health"}', None, "id: Input should be a valid string"),
    ("numeric id", '{"type": "req", "id": 7, "method": "health"}', None, "id: Input should be a valid string"),
    ("empty id", '{"type": "req", "id": "", "method": "health"}', None, "id"),
    ("missing method", '{"type": "req", "id": "b3"}', "b3", "method: Field required"),
    ("method not a string", '{"type": "req", "id": "b4", "method": ["health"]}', "b4", "method"),
    ("params not an object", '{"type": "req", "id": "b5", "method": "health", "params": [1]}', "b5", "params"),
    ("extra field", '{"type": "req", "id": "b6", "method": "health", "extra": 1}', "b6", "extra: unknown field"),
    ("NaN", '{"type": "req", "id": "b7", "method": "health", "params": {"x": NaN}}', None, "NaN is not valid JSON"),
    ("duplicate key", '{"type": "req", "id": "b8", "id": "b9", "method": "health"}', None, "duplicate key 'id'"),
    ("deep nesting", '{"type": "req", "id": "b10", "method": "health", "params": ' + '{"a": ' * 200 + "1" + "}" * 201,
     None, "nesting too deep"),
    ("bottomless nesting", "[" * 60_000, None, "nesting too deep"),
    ("binary frame", b'{"type": "req", "id": "b11", "method": "health"}', None, "binary frames are not supported"),
]  # fmt: skip

BAD_REQUESTS: list[tuple[str, dict[str, object], str, str]] = [
    ("unknown method", {"method": "no.such.method"}, "INVALID_REQUEST", "unknown method: no.such.method"),
    ("connect again", {"method": "connect", "params": {}}, "INVALID_REQUEST", "already connected"),
    ("missing params", {"method": "agent"}, "INVALID_REQUEST", "'message'"),
    ("wrong param type", {"method": "agent", "params": {"message": 5}}, "INVALID_REQUEST", "'message'"),
    ("bad value", {"method": "chat.history", "params": {"limit": "many"}}, "INVALID_REQUEST", "'limit'"),
    # OpenClaw answers an unknown run or agent with INVALID_REQUEST too; `details.code` says which (checked below).
    ("unknown run", {"method": "agent.wait", "params": {"runId": "nope"}}, "INVALID_REQUEST", "unknown run nope"),
    ("unknown agent", {"method": "agent", "params": {"message": "x", "agentId": "ghost"}}, "INVALID_REQUEST",
     "ghost"),
    ("bad session key", {"method": "chat.history", "params": {"sessionKey": "agent::"}}, "INVALID_REQUEST", "key"),
    ("bad decision", {"method": "exec.approval.resolve", "params": {"id": "a", "decision": "maybe"}},
     "INVALID_REQUEST", "invalid decision 'maybe'"),
]  # fmt: skip


async def test_malformed_frames_get_clear_errors_and_the_gateway_keeps_serving(served: Served) -> None:
    wire, bystander = await open_wire(served.url), await open_wire(served.url)
    assert len(BAD_FRAMES) + len(BAD_REQUESTS) >= 15
    for what, frame, echoed, fragment in BAD_FRAMES:
        await wire.send(frame)
        reply = await wire.res(echoed)
        assert reply["ok"] is False, what
        assert reply["error"]["code"] == "INVALID_REQUEST", what
        assert fragment in reply["error"]["message"], (what, reply["error"]["message"])
        assert (await wire.call("health"))["ok"] is True, what  # still usable
    for n, (what, fields, code, fragment) in enumerate(BAD_REQUESTS):
        await wire.send({"type": "req", "id": f"q{n}", "params": {}, **fields})
        reply = await wire.res(f"q{n}")
        assert reply["ok"] is False and reply["error"]["code"] == code, (what, reply)
        assert fragment in reply["error"]["message"], (what, reply["error"]["message"])
        reason = {"unknown run": "NOT_FOUND", "unknown agent": "CONFIG_ERROR"}.get(what)
        assert reply["error"].get("details", {}).get("code") == reason or reason is None, (what, reply)
    assert (await bystander.call("health"))["ok"] is True
    assert await wire.call("status")  # the same socket after all of that
    await wire.close()
    await bystander.close()


async def test_the_frame_cap_is_64_kib_until_connect_and_the_full_limit_after(make_served: MakeServed) -> None:
    served = await make_served(max_payload_bytes=256 * 1024)
    big = {
        "type": "req",
        "id": "w",
        "method": "workspace.write",
        "params": {"name": "memory", "content": "y" * 200_000},
    }
    # OpenClaw's clients bring the token only in `connect`: after it the cap is the full limit.
    in_band = await open_wire(served.url)
    await in_band.send(big)
    assert (await in_band.res("w"))["payload"]["chars"] == 200_000
    await in_band.send({**big, "id": "w2", "params": {"name": "memory", "content": "z" * 300_000}})
    assert await _closed(in_band) == (1009, "frame exceeds 262144 bytes")
    # Before `connect` nobody knows who is sending: 64 KiB.
    early = await open_wire(served.url, handshake=False)
    await early.send({**big, "method": "connect"})
    assert await _closed(early) == (1009, "frame exceeds 65536 bytes before connect")
    # A token on the upgrade request lifts the cap from the start (claw's RemoteClient sends it).
    trusted = await open_wire(served.url, handshake=False, additional_headers={"Authorization": f"Bearer {TOKEN}"})
    frame = connect_frame()
    frame["params"]["pad"] = "p" * 100_000  # unknown connect fields are tolerated, as OpenClaw's clients send some
    await trusted.send(frame)
    assert (await trusted.res("c1"))["payload"]["policy"]["maxPayload"] == 256 * 1024
    with pytest.raises(InvalidStatus) as refused:
        await connect(served.url, additional_headers={"Authorization": "Bearer wrong-upgrade-token"})
    assert refused.value.response.status_code == 401
    await trusted.close()


async def test_methods_need_their_scope(served: Served) -> None:
    reader = await open_wire(served.url, handshake=False)
    await reader.send(connect_frame(scopes=["operator.read"]))
    assert (await reader.res("c1"))["payload"]["auth"]["scopes"] == ["operator.read"]
    assert (await reader.call("health"))["ok"] is True
    assert (await reader.call("chat.history"))["messages"] == []
    refused = await reader.request("agent", {"message": "hi", "idempotencyKey": "r1"})
    assert refused["error"] == {
        "code": "FORBIDDEN",
        "message": "missing scope: operator.write",
        "details": {"code": "MISSING_SCOPE", "missingScope": "operator.write", "requiredScopes": ["operator.write"]},
    }
    for method, scope in (("workspace.write", "operator.admin"), ("exec.approval.resolve", "operator.approvals")):
        reply = await reader.request(method, {"name": "user", "content": "x", "id": "a", "decision": "deny"})
        assert reply["error"]["message"] == f"missing scope: {scope}", method
    writer = await open_wire(served.url, handshake=False)
    await writer.send(connect_frame(scopes=["operator.write"]))  # write implies read
    await writer.res("c1")
    assert (await writer.call("chat.history"))["messages"] == []
    assert (await writer.request("sessions.reset", {}))["error"]["message"] == "missing scope: operator.admin"
    await asyncio.gather(reader.close(), writer.close())


async def test_scopes_follow_openclaws_table_where_it_reads_the_params(served: Served) -> None:
    writer = await open_wire(served.url, handshake=False)
    await writer.send(connect_frame(scopes=["operator.read", "operator.write"]))  # openclaw-node's default ask
    await writer.res("c1")
    # /new and /reset through `agent` reset a session: admin, as OpenClaw's; any other message is write.
    for message in ("/new", "/reset now", "/NEW"):
        reply = await writer.request("agent", {"message": message, "idempotencyKey": message})
        assert reply["error"]["message"] == "missing scope: operator.admin", message
    # sessions.delete: a writer's with archivedOnly and OpenClaw's delete fields only; admin otherwise.
    assert (await writer.request("sessions.delete", {"key": "main"}))["error"]["message"].endswith("operator.admin")
    odd = {"key": "main", "archivedOnly": True, "label": "x"}
    assert (await writer.request("sessions.delete", odd))["error"]["message"].endswith("operator.admin")
    archived_only = {"key": "main", "agentId": "main", "archivedOnly": True, "deleteTranscript": False}
    refused = await writer.request("sessions.delete", archived_only)  # admitted, and claw keeps none archived
    assert refused["error"]["code"] == "INVALID_REQUEST" and "is not archived" in refused["error"]["message"]
    # OpenClaw's usage.cost and cron reads are operator.read.
    assert "totals" in await writer.call("usage.cost", days=7)
    assert (await writer.call("cron.list"))["jobs"] == []
    # An unknown field of a closed (OpenClaw) params object is refused in OpenClaw's words.
    bad = await writer.request("cron.list", {"colour": "red"})
    assert bad["error"]["code"] == "INVALID_REQUEST"
    assert bad["error"]["message"] == "invalid cron.list params: at root: unexpected property 'colour'"
    await writer.close()


async def test_an_unauthenticated_flood_is_capped_and_the_owner_still_gets_in(make_served: MakeServed) -> None:
    served = await make_served(max_pending_handshakes=8, handshake_timeout_s=5.0)
    idle = [await open_wire(served.url, handshake=False) for _ in range(8)]  # sockets that never send connect
    with pytest.raises(InvalidStatus) as refused:
        await connect(served.url, open_timeout=10)
    assert refused.value.response.status_code == 503
    # The owner's client, token on the upgrade, is not counted among the anonymous ones.
    owner = await open_wire(served.url, additional_headers={"Authorization": f"Bearer {TOKEN}"})
    assert (await owner.call("health"))["ok"] is True
    await idle[0].close()
    async with asyncio.timeout(10):
        while served.server._pending_handshakes >= 8:
            await asyncio.sleep(0.01)
    late = await open_wire(served.url)  # a slot freed: an in-band client gets in again
    assert (await late.call("health"))["ok"] is True
    await asyncio.gather(owner.close(), late.close(), *(w.close() for w in idle[1:]))


async def test_frames_that_end_the_connection_leave_others_served(make_served: MakeServed) -> None:
    served = await make_served(max_payload_bytes=256 * 1024)
    bystander = await open_wire(served.url)
    huge = Wire(await connect(served.url, additional_headers={"Authorization": f"Bearer {TOKEN}"}))
    await huge.send(connect_frame())
    await huge.res("c1")
    await huge.send(json.dumps({"type": "req", "id": "h", "method": "health", "params": {"pad": "x" * 300_000}}))
    assert await _closed(huge) == (1009, f"frame exceeds {256 * 1024} bytes")
    broken = await open_wire(served.url)
    await broken.ws.send(b'{"type": "req", "id": "u", "method": "health", "x": "\xff\xfe"}', text=True)
    assert (await _closed(broken))[0] == 1007  # RFC 6455: invalid UTF-8 in a text frame fails the connection
    assert (await bystander.call("health"))["ok"] is True
    late = await open_wire(served.url)
    assert (await late.call("health"))["ok"] is True
    await asyncio.gather(bystander.close(), late.close())


async def test_claws_client_names_a_gateway_that_sends_no_challenge() -> None:
    """A gateway of claw's old protocol 1 says nothing first: the client says so instead of a bare timeout."""
    from websockets.asyncio.server import ServerConnection, serve

    from claw.client.remote import RemoteClient
    from claw.errors import GatewayUnavailable

    async def silent(conn: ServerConnection) -> None:
        await conn.wait_closed()

    async with serve(silent, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        with pytest.raises(GatewayUnavailable, match="sent no connect.challenge within 0.3 s: it does not speak"):
            await RemoteClient.connect(f"ws://127.0.0.1:{port}/", TOKEN, open_timeout=0.3)


_UPGRADE = (
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


async def _dribbled_until_closed(port: int, head: bytes, dribble: bytes, *, upgrade: bool = False) -> float:
    """Send `head`, then `dribble` a byte every 0.2 s (a slowloris); the seconds until the server closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = asyncio.get_running_loop().time()
    try:
        writer.write(head)
        if upgrade:  # the 101 (and the challenge after it) arrive; then the connect frame never completes
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
        for byte in dribble:
            writer.write(bytes([byte]))
            await writer.drain()
            try:
                if await asyncio.wait_for(reader.read(4096), 0.2) == b"":
                    break
            except TimeoutError:
                continue
        else:
            raise AssertionError(f"still open after dribbling {len(dribble)} bytes")
    except ConnectionError:
        pass
    finally:
        writer.close()
    return asyncio.get_running_loop().time() - started


async def test_sockets_that_dribble_bytes_are_closed_and_the_owner_is_served(make_served: MakeServed) -> None:
    """The red team's partial: slowloris sockets were not dropped within 15 s."""
    served = await make_served(handshake_timeout_s=1.5)
    port = served.server.port
    owner = await open_wire(served.url)
    slow_header = b"X-Slow: " + b"a" * 200
    masked_text_frame = b"\x81\xfe\x01\x00" + b"\x00" * 200  # a 256-byte frame announced, sent a byte at a time
    dribblers = [
        *(_dribbled_until_closed(port, b"GET /health HTTP/1.1\r\nHost: x\r\n", slow_header) for _ in range(10)),
        *(_dribbled_until_closed(port, _UPGRADE[:-2], slow_header) for _ in range(5)),  # an upgrade, never done
        _dribbled_until_closed(port, b"GET /", b"a" * 200),  # a request line that never ends
        _dribbled_until_closed(port, _UPGRADE, masked_text_frame, upgrade=True),  # `connect` never arrives whole
    ]
    tasks = [asyncio.ensure_future(d) for d in dribblers]
    while not all(t.done() for t in tasks):  # the owner is served all along
        assert (await owner.call("health"))["ok"] is True
        await asyncio.sleep(0.2)
    times = await asyncio.gather(*tasks)
    assert all(seconds < 6 for seconds in times), " ".join(f"{t:.1f}" for t in times)
    assert (await owner.call("health"))["ok"] is True
    await owner.close()


def test_the_handshake_timeout_is_a_gateway_setting() -> None:
    from claw.config import GatewaySettings
    from claw.server.settings import ServerSettings

    assert GatewaySettings().handshake_timeout_seconds == 10.0
    settings = GatewaySettings.model_validate({"handshakeTimeoutSeconds": 3})
    assert ServerSettings.from_config(settings, TOKEN).handshake_timeout_s == 3.0
