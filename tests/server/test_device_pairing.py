"""OpenClaw's `device.pair.list|approve|reject` over a real socket, in OpenClaw's shapes (what
`openclaw devices list|approve|reject` read), and the scope they need."""

from __future__ import annotations

import time

from tests.server.conftest import Served, connect_frame, open_wire
from tests.server.device_keys import PROXIED, Device, closed, connect_device


async def _pending(served: Served, device: Device) -> str:
    """Have `device` ask from another host; its request id."""
    wire, refused = await connect_device(served, device, headers=PROXIED, ask=("operator.read", "operator.write"))
    assert refused["error"]["details"]["code"] == "PAIRING_REQUIRED", refused
    await closed(wire)
    return str(refused["error"]["details"]["requestId"])


async def test_list_approve_and_reject_in_openclaws_shapes(served: Served) -> None:
    local, waiting, refused_one = Device(), Device(), Device()
    local_wire, hello = await connect_device(served, local)  # paired on sight: loopback
    assert hello["ok"], hello
    before = int(time.time() * 1000)
    request_id = await _pending(served, waiting)
    other_request = await _pending(served, refused_one)
    admin = await open_wire(served.url)

    listed = await admin.call("device.pair.list")
    assert set(listed) == {"pending", "paired"}
    pending = {p["deviceId"]: p for p in listed["pending"]}
    assert set(pending) == {waiting.id, refused_one.id}
    request = pending[waiting.id]
    assert request["ts"] >= before - 1000
    del request["ts"]
    assert request == {
        "requestId": request_id, "deviceId": waiting.id, "publicKey": waiting.public_key, "platform": "linux",
        "clientId": "test", "clientMode": "test", "role": "operator", "roles": ["operator"],
        "scopes": ["operator.read", "operator.write"],
        "remoteIp": "127.0.0.1",  # the socket's peer: a forwarded-for header is not believed
    }  # fmt: skip
    [paired] = listed["paired"]
    assert paired["deviceId"] == local.id and paired["publicKey"] == local.public_key
    assert paired["approvedVia"] == "silent" and paired["connected"] is True and paired["tokens"] == []
    assert paired["roles"] == ["operator"] and paired["scopes"] == ["operator.admin"]
    assert {"createdAtMs", "approvedAtMs", "lastSeenAtMs"} <= set(paired)
    assert "requestId" not in paired and "status" not in paired

    # Approve names the request, as OpenClaw does: a device id is not a request id.
    wrong = await admin.request("device.pair.approve", {"requestId": waiting.id})
    assert wrong["error"]["code"] == "INVALID_REQUEST" and wrong["error"]["message"] == "unknown requestId"
    approved = await admin.call("device.pair.approve", requestId=request_id)
    assert approved["requestId"] == request_id
    assert approved["device"]["deviceId"] == waiting.id and approved["device"]["approvedVia"] == "owner"
    assert approved["device"]["connected"] is False
    wire, hello = await connect_device(served, waiting, headers=PROXIED, ask=("operator.read", "operator.write"))
    assert hello["ok"], hello
    again = await admin.request("device.pair.approve", {"requestId": request_id})
    assert again["error"]["message"] == "unknown requestId"

    assert await admin.call("device.pair.reject", requestId=other_request) == {
        "requestId": other_request,
        "deviceId": refused_one.id,
    }
    listed = await admin.call("device.pair.list")
    assert listed["pending"] == []
    assert {d["deviceId"]: d["connected"] for d in listed["paired"]} == {local.id: True, waiting.id: True}
    # Rejected is forgotten, not banned: the device may ask again, with a new request.
    assert await _pending(served, refused_one) != other_request

    bad = await admin.request("device.pair.list", {"all": True})
    assert bad["error"]["code"] == "INVALID_REQUEST" and "unexpected property 'all'" in bad["error"]["message"]
    empty = await admin.request("device.pair.reject", {"requestId": " "})
    assert empty["error"]["code"] == "INVALID_REQUEST" and "requestId" in empty["error"]["message"]
    for conn in (local_wire, wire, admin):
        await conn.close()


async def test_pairing_methods_need_operator_pairing_or_admin(served: Served) -> None:
    reader = await open_wire(served.url, handshake=False)
    await reader.send(connect_frame(scopes=["operator.read", "operator.write", "operator.approvals"]))
    assert (await reader.res("c1"))["ok"]
    for method, params in (
        ("device.pair.list", {}),
        ("device.pair.approve", {"requestId": "abcd1234"}),
        ("device.pair.reject", {"requestId": "abcd1234"}),
        ("device.pair.remove", {"deviceId": "ab" * 32}),
    ):
        reply = await reader.request(method, params)
        assert reply["error"]["code"] == "FORBIDDEN", (method, reply)
        assert reply["error"]["details"] == {"code": "MISSING_SCOPE", "missingScope": "operator.pairing",
                                             "requiredScopes": ["operator.pairing"]}  # fmt: skip
    pairing = await open_wire(served.url, handshake=False)
    await pairing.send(connect_frame(scopes=["operator.pairing"]))  # what `openclaw devices list` asks for
    assert (await pairing.res("c1"))["ok"]
    assert await pairing.call("device.pair.list") == {"pending": [], "paired": []}
    await reader.close()
    await pairing.close()
