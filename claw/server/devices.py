"""`DeviceRegistry`: the devices that may connect, kept on disk so approvals outlive the gateway.

One JSON file, `<data dir>/devices/devices.json` (0600, in a 0700 directory), one record per device id:
`paired` (may connect), `pending` (asked, waiting for `claw devices approve ID`) or `revoked` (refused
until approved again). The gateway and the `claw devices` command are separate processes, so every
change is a read-modify-write under an exclusive lock on a sibling lock file. The gateway reads the file
at each device's connect (an approval lets a waiting device in at its next attempt) and watches it
while it runs (claw/server/device_watch.py): a device no longer paired loses its open connections at
once, whichever process changed the file. `remove` and `reject` forget a record (OpenClaw's
`device.pair.remove` / `device.pair.reject`): the device asks again at its next connect, and is paired
again at once over loopback; `revoke` is what keeps a device out.

The policy (claw/server/ws_handshake.py): the gateway token is always required; a device on a
loopback connection is paired on first sight (`autoApproved`); a new device from anywhere else is
recorded as pending and refused until approved; a revoked device is refused everywhere.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claw.errors import NotFoundError, UsageError
from claw.protocol.device_proof import b64url, raw_public_key

PAIRED, PENDING, REVOKED = "paired", "pending", "revoked"
MAX_PENDING = 64
"""Pending requests kept; older ones are forgotten (a device that still wants in asks again)."""
SEEN_WRITE_INTERVAL_MS = 60_000
"""`lastSeenAtMs` is rewritten at most this often per device, so connecting stays cheap."""


@dataclass(frozen=True, slots=True)
class Admission:
    """What the registry says about one connecting device."""

    status: str
    """`paired`, or `pending` / `revoked` (refused)."""
    request_id: str | None = None


class DeviceRegistry:
    """The devices file; see the module docstring."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.file = directory / "devices.json"

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> DeviceRegistry:
        return cls(data_dir / "devices")

    def list(self) -> list[dict[str, Any]]:
        """Every record, newest first."""
        with self._locked():
            records = self._read()
        return sorted(records.values(), key=lambda r: r.get("createdAtMs", 0), reverse=True)

    def admit(self, device_id: str, raw_key: bytes, *, local: bool, client: dict[str, Any]) -> Admission:
        """Record a device that proved its key (`raw_key`, the 32 bytes `verify` returns), and say whether
        it may connect. Keys are compared as raw bytes and stored in one canonical form, so the same key
        sent as a PEM, padded or in standard base64 is the same device: a revoked key stays revoked."""
        now = _now_ms()
        public_key = b64url(raw_key)
        with self._locked():
            records = self._read()
            record = records.get(device_id)
            if record is not None and record["status"] == REVOKED:
                return Admission(REVOKED)  # whatever key the record holds: revocation is by id, the key's hash
            if record is not None and _raw_or_none(str(record.get("publicKey", ""))) != raw_key:
                record = None  # the same id with another key cannot happen (the id is the key's hash)
            if record is not None and record["status"] == PAIRED:
                if now - int(record.get("lastSeenAtMs", 0)) >= SEEN_WRITE_INTERVAL_MS:
                    record["lastSeenAtMs"] = now
                    self._write(records)
                return Admission(PAIRED)
            if local:
                records[device_id] = {**_base(device_id, public_key, client, now), "status": PAIRED,
                                      "autoApproved": True, "approvedAtMs": now, "lastSeenAtMs": now}  # fmt: skip
                self._write(records)
                return Admission(PAIRED)
            if record is None:
                record = {**_base(device_id, public_key, client, now), "status": PENDING,
                          "requestId": secrets.token_hex(4)}  # fmt: skip
                records[device_id] = record
                _forget_oldest_pending(records)
                self._write(records)
            return Admission(PENDING, str(record.get("requestId", "")))

    def approve(self, ref: str) -> dict[str, Any]:
        """Pair a pending or revoked device (`ref`: its id, a unique prefix of it, or its request id)."""
        with self._locked():
            records = self._read()
            record = _find(records, ref)
            record.update(status=PAIRED, approvedAtMs=_now_ms(), autoApproved=False)
            record.pop("requestId", None)
            self._write(records)
            return record

    def revoke(self, ref: str) -> dict[str, Any]:
        """Refuse a device from its next connect on, loopback included, until it is approved again."""
        with self._locked():
            records = self._read()
            record = _find(records, ref)
            record.update(status=REVOKED, revokedAtMs=_now_ms())
            record.pop("requestId", None)
            self._write(records)
            return record

    def approve_request(self, request_id: str) -> dict[str, Any] | None:
        """Pair the pending device whose request is exactly `request_id` (OpenClaw's `device.pair.approve`:
        a request id only, never a device id); None when no pending request has it."""
        with self._locked():
            records = self._read()
            record = _pending(records, request_id)
            if record is None:
                return None
            record.update(status=PAIRED, approvedAtMs=_now_ms(), autoApproved=False)
            record.pop("requestId", None)
            self._write(records)
            return record

    def reject(self, request_id: str) -> dict[str, Any] | None:
        """Forget the pending request `request_id`; the record it was, or None when there is none."""
        with self._locked():
            records = self._read()
            record = _pending(records, request_id)
            if record is not None:
                del records[record["deviceId"]]
                self._write(records)
            return record

    def remove(self, device_id: str) -> dict[str, Any] | None:
        """Forget the paired device `device_id` (its full id); the record it was, or None when no paired
        device has that id. A revoked device stays revoked: `approve` is what lets it in again."""
        with self._locked():
            records = self._read()
            record = records.get(device_id.strip().lower())
            if record is None or record.get("status") != PAIRED:
                return None
            del records[record["deviceId"]]
            self._write(records)
            return record

    def rename(self, device_id: str, label: str) -> dict[str, Any] | None:
        """Name the paired device `device_id` (its full id) `label`; None when no paired device has that id."""
        with self._locked():
            records = self._read()
            record = records.get(device_id.strip().lower())
            if record is None or record.get("status") != PAIRED:
                return None
            record["displayName"] = label
            self._write(records)
            return record

    def statuses(self) -> dict[str, str]:
        """Each device id's status, read without the lock: the file is replaced atomically, so a reader
        sees the previous version or the next, never half of one (the watch reads it this way)."""
        return {key: str(record.get("status")) for key, record in self._read().items()}

    def signature(self) -> tuple[int, ...] | None:
        """What changes whenever the file is replaced (inode, size, times), or None while there is none."""
        try:
            st = os.stat(self.file)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    # --- the file -----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        from claw.paths import ensure_private_dir

        ensure_private_dir(self.directory)
        fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            value = json.loads(self.file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            from claw.errors import ConfigError

            raise ConfigError(f"cannot read the devices file {self.file}: {exc}; fix or remove it") from None
        devices = value.get("devices") if isinstance(value, dict) else None
        return {k: v for k, v in devices.items() if isinstance(v, dict)} if isinstance(devices, dict) else {}

    def _write(self, records: dict[str, dict[str, Any]]) -> None:
        from claw.store.atomic import atomic_write_json

        atomic_write_json(self.file, {"version": 1, "devices": records}, mode=0o600)


def _base(device_id: str, public_key: str, client: dict[str, Any], now: int) -> dict[str, Any]:
    return {"deviceId": device_id, "publicKey": public_key, "createdAtMs": now, **client}


def _raw_or_none(public_key: str) -> bytes | None:
    """A stored key as raw bytes (records from before keys were stored canonically may hold a PEM)."""
    try:
        return raw_public_key(public_key)
    except ValueError:
        return None


def _forget_oldest_pending(records: dict[str, dict[str, Any]]) -> None:
    pending = sorted((r.get("createdAtMs", 0), k) for k, r in records.items() if r.get("status") == PENDING)
    for _, key in pending[: max(0, len(pending) - MAX_PENDING)]:
        del records[key]


def _pending(records: dict[str, dict[str, Any]], request_id: str) -> dict[str, Any] | None:
    wanted = request_id.strip()
    return next((r for r in records.values() if r.get("status") == PENDING and r.get("requestId") == wanted), None)


def _find(records: dict[str, dict[str, Any]], ref: str) -> dict[str, Any]:
    wanted = ref.strip().lower()
    if not wanted:
        raise UsageError("name a device: its id (or the first characters of it) from `claw devices ls`")
    exact = records.get(wanted) or next((r for r in records.values() if r.get("requestId") == wanted), None)
    if exact is not None:
        return exact
    matches = [r for key, r in records.items() if key.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFoundError(f"no device {ref!r}; see `claw devices ls`")
    raise UsageError(f"{ref!r} matches {len(matches)} devices; give more of the id")


def _now_ms() -> int:
    return int(time.time() * 1000)
