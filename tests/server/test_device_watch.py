"""A device that is revoked or removed loses its open connections at once, over real sockets: by the real
`claw devices revoke` (another process editing the devices file) and by OpenClaw's `device.pair.remove`;
and a revocation made while no gateway runs holds when one starts."""

from __future__ import annotations

import asyncio
import json

from claw.server.device_watch import REMOVED_REASON, REVOKED_REASON
from tests.server.conftest import MakeServed, Served, open_wire
from tests.server.device_keys import PROXIED, Device, closed, connect_device
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw


async def _claw_devices(claw_env: ClawEnv, *args: str) -> str:
    """The real CLI, off the event loop (the gateway under test runs on it)."""
    done = await asyncio.to_thread(run_claw, claw_env.env, "devices", *args, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_revoking_with_the_cli_closes_every_open_connection_of_that_device_only(
    claw_env: ClawEnv, served: Served
) -> None:
    device, bystander = Device(), Device()
    first, hello = await connect_device(served, device)
    assert hello["ok"], hello
    second, hello = await connect_device(served, device)
    assert hello["ok"], hello
    other, hello = await connect_device(served, bystander)
    assert hello["ok"], hello

    printed = await _claw_devices(claw_env, "revoke", device.id[:12])
    assert "closes its open connections" in printed
    assert await closed(first) == (1008, REVOKED_REASON)
    assert await closed(second) == (1008, REVOKED_REASON)
    assert (await other.call("health"))["ok"] is True  # another device is not touched
    # Revoked is refused from now on, over loopback too.
    again, refused = await connect_device(served, device)
    assert refused["error"]["code"] == "NOT_PAIRED" and "revoked" in refused["error"]["message"]
    assert (await closed(again))[0] == 1008
    # Approved again, it connects again.
    await _claw_devices(claw_env, "approve", device.id[:12])
    back, hello = await connect_device(served, device)
    assert hello["ok"], hello
    await asyncio.gather(back.close(), other.close())


async def test_device_pair_remove_answers_then_closes_the_removed_devices_connections(served: Served) -> None:
    device = Device()
    wire, hello = await connect_device(served, device)
    assert hello["ok"], hello
    admin = await open_wire(served.url)  # loopback, no device: the owner at the gateway's host
    assert await admin.call("device.pair.remove", deviceId=device.id) == {"deviceId": device.id}
    assert await closed(wire) == (1008, REMOVED_REASON)
    listed = await admin.call("device.pair.list")
    assert device.id not in [d["deviceId"] for d in listed["paired"]]
    unknown = await admin.request("device.pair.remove", {"deviceId": device.id})
    assert unknown["error"]["code"] == "INVALID_REQUEST" and unknown["error"]["message"] == "unknown deviceId"
    # Removed is not revoked: from another host it asks again, over loopback it is paired again at once.
    asks, refused = await connect_device(served, device, headers=PROXIED)
    assert refused["error"]["details"]["code"] == "PAIRING_REQUIRED"
    await closed(asks)
    await admin.call("device.pair.reject", requestId=refused["error"]["details"]["requestId"])
    wire, hello = await connect_device(served, device)
    assert hello["ok"], hello
    # A device that removes itself hears that it worked before its connection closes.
    reply = await wire.request("device.pair.remove", {"deviceId": device.id})
    assert reply["ok"] and reply["payload"] == {"deviceId": device.id}
    assert await closed(wire) == (1008, REMOVED_REASON)
    await admin.close()


async def test_a_revocation_made_while_the_gateway_is_down_holds_when_it_starts(
    claw_env: ClawEnv, make_served: MakeServed
) -> None:
    device = Device()
    first = await make_served()
    wire, hello = await connect_device(first, device)
    assert hello["ok"], hello
    await wire.close()
    await first.gateway.close()

    await _claw_devices(claw_env, "revoke", device.id)
    listed = json.loads(await _claw_devices(claw_env, "ls", "--json"))
    assert [(d["deviceId"], d["status"]) for d in listed] == [(device.id, "revoked")]

    second = await make_served()
    wire, refused = await connect_device(second, device)
    assert refused["error"]["code"] == "NOT_PAIRED" and "revoked" in refused["error"]["message"]
    assert (await closed(wire))[0] == 1008


async def test_an_unreadable_devices_file_closes_nothing(claw_env: ClawEnv, served: Served) -> None:
    device = Device()
    wire, hello = await connect_device(served, device)
    assert hello["ok"], hello
    (claw_env.home / "devices" / "devices.json").write_text("{not json", encoding="utf-8")
    await asyncio.sleep(served.server.settings.devices_check_s * 3)  # several looks at the broken file
    assert (await wire.call("health"))["ok"] is True
    await wire.close()
