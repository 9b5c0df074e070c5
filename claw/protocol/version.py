"""The protocol's version and the names both ends must spell alike, importing nothing (a client stays light)."""

from __future__ import annotations

PROTOCOL_VERSION = 4
"""The one protocol version claw speaks (OpenClaw's gateway protocol); a client's [minProtocol, maxProtocol]
must include it."""

SUBSCRIBE, UNSUBSCRIBE = "sessions.messages.subscribe", "sessions.messages.unsubscribe"
"""A connection's own methods: a session's live events, for as long as the socket lives."""
