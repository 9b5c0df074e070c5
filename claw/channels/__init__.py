"""Channels: platform adapters (webhook, Telegram), the durable inbox and outbox, and access control.

Platform details stop at the adapter: everything after it sees `MsgContext` on the way in
and an outbox row (rendered parts for one conversation) on the way out.
"""
