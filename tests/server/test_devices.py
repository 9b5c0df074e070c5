"""Device identity and pairing over a real socket: OpenClaw's signed `device` in `connect`, checked and
remembered; `claw devices ls|approve|revoke` (the real CLI) decides who gets in.
Devices are signed as openclaw-node signs them (tests/server/device_keys.py)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time

from claw.client.device_identity import DeviceIdentity
from claw.client.remote import RemoteClient
from tests.server.conftest import TOKEN, Served, connect_frame, open_wire
from tests.server.device_keys import PROXIED, Device
from tests.server.device_keys import closed as _closed
from tests.server.device_keys import connect_device as _connect
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw


def _devices(claw_env: ClawEnv, *args: str) -> str:
    done = run_claw(claw_env.env, "devices", *args, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_a_loopback_device_is_paired_on_first_sight_and_kept_in_private_files(
    claw_env: ClawEnv, served: Served
) -> None:
    device = Device()
    wire, hello = await _connect(served, device)
    assert hello["ok"], hello
    assert (await wire.call("health"))["ok"] is True
    await wire.close()
    folder = claw_env.home / "devices"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "devices.json").stat().st_mode) == 0o600
    listed = json.loads(_devices(claw_env, "ls", "--json"))
    assert [(d["deviceId"], d["status"], d["autoApproved"]) for d in listed] == [(device.id, "paired", True)]
    assert "publicKey" not in listed[0]
    assert device.id[:12] in _devices(claw_env, "ls") and "paired (local)" in _devices(claw_env, "ls")


async def test_bad_proofs_are_refused_with_openclaws_reasons(served: Served) -> None:
    device, other = Device(), Device()
    # A replay: a proof that was good for one connection's challenge, sent on another.
    first = await open_wire(served.url, handshake=False)
    recorded = device.proof(first.challenge["nonce"])
    await first.send(connect_frame(device=recorded))
    assert (await first.res("c1"))["ok"]
    replay = await open_wire(served.url, handshake=False)
    await replay.send(connect_frame(device=recorded))
    cases = [(replay, await replay.res("c1"), "DEVICE_AUTH_NONCE_MISMATCH", "device nonce mismatch")]
    for proof, code, message in (
        ({"key": other.key}, "DEVICE_AUTH_SIGNATURE_INVALID", "device signature invalid"),  # another key signed
        ({"signed_at": int(time.time() * 1000) - 600_000}, "DEVICE_AUTH_SIGNATURE_EXPIRED", "device signature expired"),
        # signed for other scopes than the ones asked for
        ({"scopes": ("operator.read",)}, "DEVICE_AUTH_SIGNATURE_INVALID", "device signature invalid"),
    ):
        wire, reply = await _connect(served, device, **proof)
        cases.append((wire, reply, code, message))
    wrong_id = await open_wire(served.url, handshake=False)
    await wrong_id.send(connect_frame(device={**device.proof(wrong_id.challenge["nonce"]), "id": other.id}))
    cases.append((wrong_id, await wrong_id.res("c1"), "DEVICE_AUTH_DEVICE_ID_MISMATCH", "device identity mismatch"))
    for wire, reply, code, message in cases:
        assert reply["ok"] is False and reply["error"]["code"] == "INVALID_REQUEST", reply
        assert reply["error"]["details"]["code"] == code and reply["error"]["message"] == message
        assert await _closed(wire) == (1008, message)
    await first.close()


async def test_a_new_remote_device_waits_for_approval_and_a_revoked_one_is_refused(
    claw_env: ClawEnv, served: Served
) -> None:
    device = Device()
    wire, refused = await _connect(served, device, headers=PROXIED)
    error = refused["error"]
    assert error["code"] == "NOT_PAIRED" and error["details"]["code"] == "PAIRING_REQUIRED"
    request_id = error["details"]["requestId"]
    assert f"claw devices approve {device.id[:12]}" in error["message"]
    code, reason = await _closed(wire)
    assert code == 1008 and reason == f"pairing required: device not yet approved (requestId: {request_id})"
    # Asking again does not make a second request; the owner sees one pending device.
    again, refused_again = await _connect(served, device, headers=PROXIED)
    assert refused_again["error"]["details"]["requestId"] == request_id
    await _closed(again)
    assert f"pending ({request_id})" in _devices(claw_env, "ls")

    assert "Approved device" in _devices(claw_env, "approve", device.id[:8])
    wire, hello = await _connect(served, device, headers=PROXIED)
    assert hello["ok"], hello
    await wire.close()

    assert "Revoked device" in _devices(claw_env, "revoke", device.id)
    for headers in (PROXIED, None):  # revoked is refused over loopback too: no silent re-pairing
        wire, refused = await _connect(served, device, headers=headers)
        assert refused["error"]["code"] == "NOT_PAIRED" and "revoked" in refused["error"]["message"]
        assert (await _closed(wire))[0] == 1008
    # Without a device at all, only a direct loopback connection is served.
    anonymous, refused = await _connect(served, None, headers=PROXIED)
    assert refused["error"]["details"]["code"] == "DEVICE_IDENTITY_REQUIRED"
    await _closed(anonymous)


async def test_a_revoked_key_stays_revoked_in_any_spelling(claw_env: ClawEnv, served: Served) -> None:
    """The red team's break: the revoked key sent as a PEM was a new device, re-paired over loopback."""
    device = Device()
    wire, hello = await _connect(served, device)
    assert hello["ok"], hello
    await wire.close()
    assert "Revoked device" in _devices(claw_env, "revoke", device.id)
    for spelling, public_key in device.spellings().items():
        for headers in (None, PROXIED):
            wire, refused = await _connect(served, device, headers=headers, public_key=public_key)
            assert refused["ok"] is False and "revoked" in refused["error"]["message"], (spelling, refused)
            assert (await _closed(wire))[0] == 1008
    listed = json.loads(_devices(claw_env, "ls", "--json"))
    assert [(d["deviceId"], d["status"]) for d in listed] == [(device.id, "revoked")]
    # Approved again, the PEM spelling is the same paired device, not a second record.
    _devices(claw_env, "approve", device.id[:12])
    wire, hello = await _connect(served, device, headers=PROXIED, public_key=device.spellings()["pem"])
    assert hello["ok"], hello
    await wire.close()
    assert len(json.loads(_devices(claw_env, "ls", "--json"))) == 1


async def test_devices_cli_explains_bad_references(claw_env: ClawEnv) -> None:
    done = run_claw(claw_env.env, "devices", "approve", "feedface", timeout=30)
    assert done.returncode != 0 and "no device 'feedface'; see `claw devices ls`" in done.stderr
    assert "Traceback" not in done.stderr
    assert "No devices yet" in _devices(claw_env, "ls")


async def test_claws_own_client_signs_with_this_machines_key(claw_env: ClawEnv, served: Served) -> None:
    client = await RemoteClient.connect(served.url, TOKEN)
    assert (await client.call("health"))["ok"] is True
    assert client.hello["auth"]["scopes"] == sorted(client.hello["auth"]["scopes"])
    assert "operator.admin" in client.hello["auth"]["scopes"]
    await client.close()
    identity = DeviceIdentity.load_or_create(claw_env.home)
    stored = claw_env.home / "identity" / "device.json"
    assert stat.S_IMODE(os.stat(stored).st_mode) == 0o600
    listed = json.loads(_devices(claw_env, "ls", "--json"))
    assert [(d["deviceId"], d["clientId"], d["clientMode"]) for d in listed] == [(identity.device_id, "cli", "cli")]
    # The same machine's next connect is the same device.
    again = await RemoteClient.connect(served.url, TOKEN)
    await asyncio.gather(again.close())
    assert len(json.loads(_devices(claw_env, "ls", "--json"))) == 1


async def test_an_unreadable_devices_file_refuses_devices_but_not_the_gateway(
    claw_env: ClawEnv, served: Served
) -> None:
    folder = claw_env.home / "devices"
    folder.mkdir(mode=0o700)
    (folder / "devices.json").write_text("{not json", encoding="utf-8")
    wire, refused = await _connect(served, Device())
    message = "the gateway cannot read its devices file; see the gateway log"
    assert refused["error"] == {"code": "UNAVAILABLE", "message": message}
    assert (await _closed(wire))[0] == 1011
    plain = await open_wire(served.url)  # loopback without a device does not need the file
    assert (await plain.call("health"))["ok"] is True
    await plain.close()
    done = run_claw(claw_env.env, "devices", "ls", timeout=30)
    assert done.returncode != 0 and "cannot read the devices file" in done.stderr and "Traceback" not in done.stderr
