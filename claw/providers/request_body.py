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
"""Cached encodings not used for between this many and twice this many calls are dropped (another
session's history, say): the cache has two generations, and every this many calls the older one goes."""
BIG_TEXT_CHARS = 8_192
"""`content` at least this long is also cached by its text: the system prompt is a new dict each call."""
_MAX_TEXTS = 16


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON, the way the openai client itself encodes request bodies."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


class RequestEncoder:
    """Encodes chat request bodies, reusing the encodings of messages sent before."""

    def __init__(self) -> None:
        # id(message) → (message, its JSON); holding the message keeps its id from being reused.
        self._current: dict[int, tuple[dict[str, Any], bytes]] = {}
        self._older: dict[int, tuple[dict[str, Any], bytes]] = {}
        self._texts: dict[str, bytes] = {}
        self._calls = 0
        self.reused = 0  # messages taken from the cache, over all calls (for tests and benchmarks)

    def encode(self, body: dict[str, Any]) -> bytes:
        """`body` as JSON bytes; its `messages` list is encoded message by message."""
        messages = body.get("messages")
        if not isinstance(messages, list):
            return dumps(body)
        self._calls += 1
        if self._calls % KEEP_UNUSED_CALLS == 0:
            self._older, self._current = self._current, {}
        current, parts, reused = self._current, [], 0
        for message in messages:
            hit = current.get(id(message))
            if hit is None or hit[0] is not message:
                hit = self._miss(message)
            else:
                reused += 1
            parts.append(hit[1])
        self.reused += reused
        rest = {k: v for k, v in body.items() if k != "messages"}
        tail = b"]," + dumps(rest)[1:] if rest else b"]}"
        return b"".join((b'{"messages":[', b",".join(parts), tail))

    def _miss(self, message: Any) -> tuple[Any, bytes]:
        """Not in the current generation: from the older one (moved up), or encoded now."""
        key = id(message)
        hit = self._older.pop(key, None)
        if hit is not None and hit[0] is message:
            self.reused += 1
        else:
            hit = (message, self._encode_new(message) if isinstance(message, dict) else dumps(message))
        self._current[key] = hit
        return hit

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
