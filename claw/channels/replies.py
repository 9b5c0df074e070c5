"""Putting a reply into the outbox: rendered and split for the platform, in the caller's transaction."""

from __future__ import annotations

import sqlite3

from claw.channels import outbox
from claw.channels.adapter import ChannelAdapter
from claw.channels.inbox import InboxRow
from claw.channels.render import render_parts

NO_REPLY = "NO_REPLY"
FAILED_REPLY = "Sorry, something went wrong while answering (the details are in the gateway log)."
STOPPED_REPLY = "(stopped)"


def pairing_reply(channel: str, code: str) -> str:
    return (
        "Hi! I don't know you yet, so I can't answer. Ask my owner to approve you with:\n\n"
        f"`claw pairing approve {channel} {code}`\n\nThe code is valid for one hour."
    )


def queue_reply(
    conn: sqlite3.Connection,
    adapter: ChannelAdapter,
    row: InboxRow,
    text: str,
    now: float,
    *,
    run_id: str | None = None,
    edit_message_id: str | None = None,
) -> int | None:
    """Queue `text` (Markdown) as the reply to `row`; the outbox id, or None when there is nothing to send."""
    parts = render_parts(text, adapter.limits.text_format, adapter.limits.max_length)
    if not parts and edit_message_id is not None:
        parts = [STOPPED_REPLY]  # a streaming preview is never left standing as if it were the answer
    if not parts:
        return None
    return outbox.enqueue(
        conn,
        channel=row.channel,
        account_id=row.account_id,
        conversation=row.conversation,
        target=dict(row.reply_to),
        parts=parts,
        now=now,
        edit_message_id=edit_message_id,
        inbox_id=row.id,
        run_id=run_id,
    )
