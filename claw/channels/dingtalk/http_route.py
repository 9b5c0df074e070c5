"""`POST /dingtalk/<account>`: DingTalk's HTTP callback for a robot (an account in `mode = "http"`).

Order: the size cap and no query string (as every ingress), then the adapter opens the request (the
`timestamp` + `sign` headers within the window, the body a robot message). The message is normalised
and stored in the inbox under its `msgId`, and only then answered `200` — a redelivery too, storing
nothing. DingTalk retries anything else. The reply goes out later, through the outbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from claw.channels.platform_ingress import read_opened, store_then_answer

if TYPE_CHECKING:
    from claw.channels.dingtalk.adapter import DingTalkAdapter
    from claw.channels.manager import ChannelManager


async def receive(manager: ChannelManager, request: web.Request, adapter: DingTalkAdapter | None) -> web.Response:
    message = await read_opened(request, adapter, "dingtalk")
    if isinstance(message, web.Response):
        return message
    assert adapter is not None
    where = f"dingtalk/{adapter.account_id}"
    inbound = adapter.normalize(message)
    return await store_then_answer(manager, adapter.channel, adapter.account_id, inbound, where)
