"""Messages the gateway starts itself (an automation's reply to `--deliver telegram:<chatId>`): straight into
the outbox, rendered and split like any reply, delivered and retried by the same worker."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from claw.channels import outbox
from claw.channels.render import render_parts
from claw.errors import UsageError

if TYPE_CHECKING:
    from claw.channels.manager import ChannelManager


async def queue_announcement(m: ChannelManager, channel: str, target: str, text: str, *, run_id: str) -> int | None:
    """Queue `text` for `<channel>:<target>`; the outbox id, or None when no account of `channel` is configured.
    A target the channel cannot parse is a `UsageError`."""
    accounts = [a for (ch, _acct), a in m.adapters.items() if ch == channel]
    if not accounts:
        return None
    adapter = next((a for a in accounts if a.account_id == "default"), accounts[0])
    conversation, reply_to = adapter.address(target)
    parts = render_parts(text, adapter.limits.text_format, adapter.limits.max_length)
    if not parts:
        raise UsageError("nothing to deliver: the reply is empty")
    now = time.time()
    row_id = await m.db.awrite(
        lambda c: outbox.enqueue(
            c,
            channel=channel,
            account_id=adapter.account_id,
            conversation=conversation,
            target=reply_to,
            parts=parts,
            now=now,
            run_id=run_id,
        )  # fmt: skip
    )
    m.outbox_wake.set()
    return row_id
