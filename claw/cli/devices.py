"""`claw devices ls|approve|revoke`: the devices (OpenClaw apps, claw on other machines) that may use the gateway.

The records live in the gateway's data dir (claw/server/devices.py), so these work whether or not the
gateway runs. The gateway reads them at each device's connect (an approval lets a waiting device in at
its next attempt) and watches them while it runs: a revocation closes the device's open connections
within a moment (claw/server/device_watch.py) and refuses it from then on, loopback included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from claw.cli.common import JsonOption, WideOption, listing

if TYPE_CHECKING:
    from claw.server.devices import DeviceRegistry

app = typer.Typer(help="Devices that may connect to the gateway: list them, approve a new one, revoke one.",
                  no_args_is_help=True)  # fmt: skip


@listing(app)
def ls(json_out: bool = JsonOption, wide: bool = WideOption) -> None:
    """Every device the gateway has seen: pending (waiting for approval), paired, revoked."""
    from claw.cli.common import print_json

    records = _registry().list()
    if json_out:
        print_json([{k: v for k, v in r.items() if k != "publicKey"} for r in records])
        return
    if not records:
        print("No devices yet. A device appears here when it first connects to the gateway.")
        return
    from claw.cli.table import Column, print_table

    columns = (Column("ID"), Column("STATUS"), Column("CLIENT", flex=True), Column("PLATFORM"),
               Column("FROM", flex=True), Column("SEEN"))  # fmt: skip
    rows = [
        (r["deviceId"][:12], _status(r), f"{r.get('clientId', '?')} ({r.get('clientMode', '?')})",
         r.get("platform") or "—", r.get("remote") or "—", _ago(r.get("lastSeenAtMs") or r.get("createdAtMs")))
        for r in records
    ]  # fmt: skip
    print_table(columns, rows, wide=wide)


DeviceArgument = typer.Argument(..., help="The device's id (or its first characters), from `claw devices ls`.")


@app.command("approve")
def approve(device: str = DeviceArgument) -> None:
    """Let a pending (or revoked) device in: it connects at its next attempt."""
    record = _registry().approve(device)
    print(f"Approved device {record['deviceId'][:12]} ({record.get('clientId', '?')}).")


@app.command("revoke")
def revoke(device: str = DeviceArgument) -> None:
    """Refuse a device (loopback included) until it is approved again; a running gateway closes its open
    connections at once."""
    record = _registry().revoke(device)
    who = f"{record['deviceId'][:12]} ({record.get('clientId', '?')})"
    print(f"Revoked device {who}; a running gateway closes its open connections, and it is refused from now on.")


def _registry() -> DeviceRegistry:
    from claw.paths import Paths
    from claw.server.devices import DeviceRegistry

    return DeviceRegistry.for_data_dir(Paths.from_env().data_dir)


def _status(record: dict[str, object]) -> str:
    if record.get("status") == "pending":
        return f"pending ({record.get('requestId')})"
    if record.get("status") == "paired" and record.get("autoApproved"):
        return "paired (local)"
    return str(record.get("status"))


def _ago(ms: object) -> str:
    import time

    if not isinstance(ms, int):
        return "—"
    seconds = max(0, int(time.time() - ms / 1000))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"
