"""The WebSocket protocol's frames: validated on the way in (pydantic), built on the way out.

    client → {"type": "req", "id": str, "method": str, "params": {...}}
    server → {"type": "res", "id": str, "ok": true, "payload": ...}
             {"type": "res", "id": str|null, "ok": false, "error": {"code": str, "message": str}}
             {"type": "event", "event": str, "payload": {...}, "seq": int}   (seq counts per connection)

The first request must be `connect` (`ConnectParams`); its reply is the hello payload.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw.server import wire_errors
from claw.strict_json import JsonError, loads_strict

PROTOCOL_VERSION = 1


class FrameError(Exception):
    """A frame that cannot be served; answered with an error `res` (echoing `id` when there is one)."""

    def __init__(self, code: str, message: str, frame_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.frame_id = frame_id


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class RequestFrame(_Strict):
    type: Literal["req"]
    id: str = Field(min_length=1, max_length=128)
    method: str = Field(min_length=1, max_length=128)
    params: dict[str, Any] = Field(default_factory=dict)


class AuthInfo(_Strict):
    token: str | None = Field(default=None, max_length=1024)


class ClientInfo(BaseModel):
    """Who is connecting. Unknown keys (platform, mode …) are informational and ignored."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)

    name: str = Field(min_length=1, max_length=64)
    version: str = Field(min_length=1, max_length=64)
    channel: str = Field(default="ws", pattern=r"^[a-z0-9][a-z0-9_-]{0,31}$")
    """The channel its messages count as (`cli` for the claw CLI, so sessions match in-process runs)."""


class ConnectParams(_Strict):
    auth: AuthInfo = AuthInfo()
    client: ClientInfo
    caps: list[str] = Field(default_factory=list, max_length=32)
    """Opt-ins, e.g. `approvals`: this client answers exec approval questions."""
    minProtocol: int = PROTOCOL_VERSION  # noqa: N815 (wire name)
    maxProtocol: int = PROTOCOL_VERSION  # noqa: N815


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


def error(frame_id: str | None, code: str, message: str, **details: Any) -> str:
    body: dict[str, Any] = {"code": code, "message": message, **details}
    return _dump({"type": "res", "id": frame_id, "ok": False, "error": body})


def event(name: str, payload: Any, seq: int) -> str:
    return _dump({"type": "event", "event": name, "payload": payload, "seq": seq})


def _dump(frame: dict[str, Any]) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"), default=str)
