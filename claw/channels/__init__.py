"""Channels: the chat platforms (one package each, `claw/channels/<platform>/`), and what they share — the
durable inbox and outbox, the processor and the delivery worker, rendering, streaming, access control.

Platform details stop at the adapter: everything after it sees `MsgContext` on the way in
and an outbox row (rendered parts for one conversation) on the way out. Which platforms exist is
composition's table (`claw.channels.platform`, `CHANNEL_PLATFORMS` in claw/compose.py).
"""
