"""Feishu's long-connection frame, `pbbp2.Frame` (protobuf, proto2), encoded and decoded by hand.

The message, as lark-oapi's `pbbp2.proto` defines it:

    Header { required string key = 1; required string value = 2; }
    Frame  { required uint64 SeqID = 1; required uint64 LogID = 2; required int32 service = 3;
             required int32 method = 4; repeated Header headers = 5; optional string payload_encoding = 6;
             optional string payload_type = 7; optional bytes payload = 8; optional string LogIDNew = 9; }

Nine fields of three wire types (varint, length-delimited) do not justify a dependency: lark-oapi is
49 MB with a vendored protobuf runtime and pins `websockets<16`; the `protobuf` package is 1–2 MB
for what is here about sixty lines. Unknown fields are skipped, as protobuf requires, so a newer
server's additions do not break the client.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from claw.errors import ClawError

CONTROL, DATA = 0, 1
"""`method`: a control frame (ping / pong) or a data frame (event / card)."""


class FrameError(ClawError, ValueError):
    """Bytes that are not a well-formed frame."""


@dataclass
class Frame:
    seq_id: int = 0
    log_id: int = 0
    service: int = 0
    method: int = CONTROL
    headers: list[tuple[str, str]] = field(default_factory=list)
    payload_encoding: str | None = None
    payload_type: str | None = None
    payload: bytes | None = None
    log_id_new: str | None = None

    def header(self, key: str, default: str = "") -> str:
        return next((v for k, v in self.headers if k == key), default)

    def encode(self) -> bytes:
        out = bytearray()
        for number, value in ((1, self.seq_id), (2, self.log_id), (3, self.service), (4, self.method)):
            out += _key(number, 0) + _varint(value)
        for k, v in self.headers:
            header = _bytes_field(1, k.encode()) + _bytes_field(2, v.encode())
            out += _bytes_field(5, header)
        for number, text in ((6, self.payload_encoding), (7, self.payload_type)):
            if text is not None:
                out += _bytes_field(number, text.encode())
        if self.payload is not None:
            out += _bytes_field(8, self.payload)
        if self.log_id_new is not None:
            out += _bytes_field(9, self.log_id_new.encode())
        return bytes(out)

    @classmethod
    def decode(cls, data: bytes) -> Frame:
        frame = cls()
        for number, value in _fields(data):
            if number in (1, 2, 3, 4) and isinstance(value, int):
                signed = _int32(value) if number in (3, 4) else value
                setattr(frame, ("seq_id", "log_id", "service", "method")[number - 1], signed)
            elif number == 5 and isinstance(value, bytes):
                pair = {n: v for n, v in _fields(value) if isinstance(v, bytes)}
                frame.headers.append((_text(pair.get(1, b"")), _text(pair.get(2, b""))))
            elif number == 6 and isinstance(value, bytes):
                frame.payload_encoding = _text(value)
            elif number == 7 and isinstance(value, bytes):
                frame.payload_type = _text(value)
            elif number == 8 and isinstance(value, bytes):
                frame.payload = value
            elif number == 9 and isinstance(value, bytes):
                frame.log_id_new = _text(value)
        return frame


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # a negative int32 is sent as its 64-bit two's complement, as protobuf does
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _key(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def _bytes_field(number: int, value: bytes) -> bytes:
    return _key(number, 2) + _varint(len(value)) + value


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while pos < len(data) and shift < 70:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            return value, pos
    raise FrameError("a truncated varint")


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    found: list[tuple[int, int | bytes]] = []
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, pos = _read_varint(data, pos)
            found.append((number, value))
        elif wire_type == 2:
            size, pos = _read_varint(data, pos)
            if pos + size > len(data):
                raise FrameError("a truncated field")
            found.append((number, data[pos : pos + size]))
            pos += size
        elif wire_type in (1, 5):  # fixed 64 / 32 bits: not in this message, skipped
            pos += 8 if wire_type == 1 else 4
        else:
            raise FrameError(f"unsupported wire type {wire_type}")
    if pos != len(data):
        raise FrameError("a truncated field")
    return found


def _int32(value: int) -> int:
    value &= (1 << 32) - 1
    return value - (1 << 32) if value >= 1 << 31 else value


def _text(value: bytes) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise FrameError("a string field that is not UTF-8") from None
