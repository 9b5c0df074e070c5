"""The WebSocket protocol's frames (OpenClaw's gateway protocol, version 4): validated on the way in
(pydantic), built on the way out.

    server → {"type": "event", "event": "connect.challenge", "payload": {"nonce": str, "ts": ms}}   (first)
    client → {"type": "req", "id": str, "method": str, "params": {...}, "traceparent"?, "expectedProfileId"?}
    server → {"type": "res", "id": str, "ok": true, "payload": ...}
             {"type": "res", "id": str|null, "ok": false,
              "error": {"code": str, "message": str, "details"?: {...}, "retryable"?, "retryAfterMs"?}}
             {"type": "event", "event": str, "payload": {...}, "seq": int}   (seq counts per connection)

The first request must be `connect` (`ConnectParams`); its reply is the `hello-ok` payload
(claw/server/ws_handshake.py). Request frames are closed objects, as OpenClaw's are; the connect
params tolerate fields claw does not use (openclaw-node's `commands`, `permissions`, `locale` …).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw.errors import ClawError
from claw.protocol import errors as wire_errors
from claw.strict_json import JsonError, loads_strict


class FrameError(ClawError):
    """A frame that cannot be served; answered with an error `res` (echoing `id` when there is one)."""

    def __init__(self, code: str, message: str, frame_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.frame_id = frame_id


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _Open(BaseModel):
    """Validated where claw reads a field; fields claw does not use are ignored, not refused."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class RequestFrame(_Strict):
    type: Literal["req"]
    id: str = Field(min_length=1, max_length=128)
    method: str = Field(min_length=1, max_length=128)
    params: dict[str, Any] = Field(default_factory=dict)
    traceparent: str | None = Field(default=None, max_length=128)
    expectedProfileId: str | None = Field(default=None, min_length=1, max_length=128)  # noqa: N815 (wire name)


class AuthInfo(_Open):
    token: str | None = Field(default=None, max_length=1024)
    password: str | None = Field(default=None, max_length=1024)
    """OpenClaw's password mode sends the shared secret here; claw treats it as the token."""

    @property
    def secret(self) -> str | None:
        """The shared secret presented, if any (blank counts as none)."""
        for value in (self.token, self.password):
            if value and value.strip():
                return value
        return None


class ClientInfo(_Open):
    """Who is connecting (OpenClaw's `client`): `id` names the program, `mode` its kind."""

    id: str = Field(min_length=1, max_length=64)
    version: str = Field(min_length=1, max_length=64)
    platform: str = Field(default="", max_length=64)
    mode: str = Field(min_length=1, max_length=32)
    deviceFamily: str | None = Field(default=None, max_length=64)  # noqa: N815 (wire name)
    instanceId: str | None = Field(default=None, max_length=128)  # noqa: N815
    displayName: str | None = Field(default=None, max_length=128)  # noqa: N815

    @property
    def channel(self) -> str:
        """The channel this client's messages count as: `cli` for a CLI (so its sessions match in-process
        runs), `tui` for a terminal UI, `ws` for any other program."""
        if self.mode == "cli" or self.id == "cli":
            return "cli"
        if self.id == "openclaw-tui":
            return "tui"
        return "ws"


class DeviceProof(_Open):
    """A device's signed answer to the challenge (claw/protocol/device_proof.py verifies it)."""

    id: str = Field(min_length=1, max_length=128)
    publicKey: str = Field(min_length=1, max_length=4096)  # noqa: N815 (wire name)
    signature: str = Field(min_length=1, max_length=4096)
    signedAt: int  # noqa: N815
    nonce: str = Field(default="", max_length=256)


class ConnectParams(_Open):
    minProtocol: int  # noqa: N815 (wire name)
    maxProtocol: int  # noqa: N815
    client: ClientInfo
    role: str = Field(default="operator", max_length=32)
    scopes: list[str] | None = Field(default=None, max_length=32)
    """None: the client asked for nothing in particular (claw then grants the operator's default set)."""
    caps: list[str] = Field(default_factory=list, max_length=64)
    """Opt-ins, e.g. `approvals`: this client answers exec approval questions."""
    auth: AuthInfo = AuthInfo()
    device: DeviceProof | None = None


def parse_request(raw: str | bytes) -> RequestFrame:
    """Decode and validate one client frame; raise `FrameError` saying what is wrong."""
    try:
        value = loads_strict(raw)
    except JsonError as exc:
        raise FrameError(wire_errors.INVALID_REQUEST, f"invalid frame: {exc}") from None
    if not isinstance(value, dict):
        raise FrameError(wire_errors.INVALID_REQUEST, f"invalid frame: expected a JSON object, got {_kind(value)}")
    frame_id = value.get("id") if isinstance(value.get("id"), str) and value.get("id") else None
    try:
        return RequestFrame.model_validate(value)
    except ValidationError as exc:
        raise FrameError(wire_errors.INVALID_REQUEST, f"invalid frame: {describe(exc)}", frame_id) from None


def parse_connect(params: dict[str, Any], frame_id: str) -> ConnectParams:
    try:
        return ConnectParams.model_validate(params)
    except ValidationError as exc:
        raise FrameError(wire_errors.INVALID_REQUEST, f"invalid connect params: {describe(exc)}", frame_id) from None


def describe(exc: ValidationError) -> str:
    """The first problem, naming the field: `id: Field required`."""
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"]) or "frame"
    message = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
    return f"{where}: {message}"


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def ok(frame_id: str, payload: Any) -> str:
    return _dump({"type": "res", "id": frame_id, "ok": True, "payload": payload})


def error(frame_id: str | None, code: str, message: str, details: dict[str, Any] | None = None, **extra: Any) -> str:
    """An error `res`; `details` (OpenClaw's structured reason, `details.code`) and `extra` (e.g.
    `retryAfterMs`, `retryable`) only when given."""
    body: dict[str, Any] = {"code": code, "message": message, **extra}
    if details:
        body["details"] = details
    return _dump({"type": "res", "id": frame_id, "ok": False, "error": body})


class Encoded(str):
    """An event payload already encoded as JSON (`encoded`): a broadcast encodes its payload once, not once
    for each of the connections it goes to (a `presence` list of 100 clients, to 100 clients, was 0.2 ms a
    connection, twice a handshake)."""


def encoded(payload: Any) -> Encoded:
    return Encoded(_dump(payload))


def event(name: str, payload: Any, seq: int | None = None, state_version: dict[str, int] | None = None) -> str:
    """An event frame; `seq` counts per connection (the pre-connect challenge has none); `state_version`, on
    `presence` and `health`, the versions of both snapshots (OpenClaw's `stateVersion`). An `Encoded` payload
    is put in as it is: the frame is the same text as with the payload itself."""
    if isinstance(payload, Encoded):
        parts = ['{"type":"event","event":', _dump(name), ',"payload":', payload]
        if seq is not None:
            parts.append(f',"seq":{int(seq)}')
        if state_version is not None:
            parts += [',"stateVersion":', _dump(state_version)]
        parts.append("}")
        return "".join(parts)
    frame: dict[str, Any] = {"type": "event", "event": name, "payload": payload}
    if seq is not None:
        frame["seq"] = seq
    if state_version is not None:
        frame["stateVersion"] = state_version
    return _dump(frame)


def _dump(frame: Any) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"), default=str)
