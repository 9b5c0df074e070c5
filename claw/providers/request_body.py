"""The JSON body of a chat request, encoded once per message rather than once per call.

A long session sends the same history again on every model call: hundreds of messages and a
system prompt of up to ~150 KB that have not changed since the last call. Encoding all of it
again costs more than everything else claw does before the call (~1.6 ms for a 256 KB request
on the benchmark machine). `RequestEncoder` keeps each message's encoding for as long as the
message is still being sent, and the big prompt texts' encodings by their content.

It relies on one rule, kept everywhere claw builds prompts: a message dict handed to a provider is
never changed afterwards (history units are built once; pruning copies the messages it trims).
The cache holds the dict itself beside its encoding, so an id is never mistaken for a new dict's.
"""

from __future__ import annotations

import json
from typing import Any

KEEP_UNUSED_CALLS = 8
"""Every this many calls, cached messages not sent in the last this many calls are dropped (another
session's history, say), so an unused encoding lives at most twice this many calls."""
BIG_TEXT_CHARS = 8_192
"""`content` at least this long is also cached by its text: the system prompt is a new dict each call."""
_MAX_TEXTS = 16


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON, the way the openai client itself encodes request bodies."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


class RequestEncoder:
    """Encodes chat request bodies, reusing the encodings of messages sent before."""

    def __init__(self) -> None:
        self._messages: dict[int, tuple[dict[str, Any], bytes, int]] = {}  # id → (message, JSON, call no.)
        self._texts: dict[str, bytes] = {}
        self._calls = 0
        self.reused = 0  # messages taken from the cache, over all calls (for tests and benchmarks)

    def encode(self, body: dict[str, Any]) -> bytes:
        """`body` as JSON bytes; its `messages` list is encoded message by message."""
        messages = body.get("messages")
        if not isinstance(messages, list):
            return dumps(body)
        self._calls += 1
        parts = [self._message(m) for m in messages]
        rest = {k: v for k, v in body.items() if k != "messages"}
        head = b'{"messages":[' + b",".join(parts) + b"]"
        if self._calls % KEEP_UNUSED_CALLS == 0:
            self._forget_unused()
        return head + (b"," + dumps(rest)[1:] if rest else b"}")

    def _message(self, message: Any) -> bytes:
        if not isinstance(message, dict):
            return dumps(message)
        key = id(message)
        hit = self._messages.get(key)
        if hit is not None and hit[0] is message:
            self.reused += 1
            encoded = hit[1]
        else:
            encoded = self._encode_new(message)
        self._messages[key] = (message, encoded, self._calls)
        return encoded

    def _encode_new(self, message: dict[str, Any]) -> bytes:
        content = message.get("content")
        if not isinstance(content, str) or len(content) < BIG_TEXT_CHARS:
            return dumps(message)
        text = self._texts.get(content)
        if text is None:
            if len(self._texts) >= _MAX_TEXTS:
                self._texts.clear()
            text = self._texts[content] = dumps(content)
        rest = {k: v for k, v in message.items() if k != "content"}
        return b'{"content":' + text + (b"," + dumps(rest)[1:] if rest else b"}")

    def _forget_unused(self) -> None:
        oldest = self._calls - KEEP_UNUSED_CALLS
        self._messages = {k: v for k, v in self._messages.items() if v[2] > oldest}
