"""`POST /feishu/<account>`: Feishu's event subscription on the gateway's port.

Order: the size caps and no query string (as every ingress), then the adapter opens the request
(signature, timestamp, decryption, verification token). A `url_verification` is answered with its
challenge; an event is normalised and stored in the inbox under its `event_id`, and only then
answered `200` — a redelivery too, storing nothing. The platform retries anything else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from claw.channels.ingress import _answer
from claw.channels.platform_ingress import read_opened, store_then_answer

if TYPE_CHECKING:
    from claw.channels.feishu.adapter import FeishuAdapter
    from claw.channels.manager import ChannelManager


async def receive(manager: ChannelManager, request: web.Request, adapter: FeishuAdapter | None) -> web.Response:
    envelope = await read_opened(request, adapter, "feishu")
    if isinstance(envelope, web.Response):
        return envelope
    assert adapter is not None
    where = f"feishu/{adapter.account_id}"
    if envelope.type == "url_verification":
        return web.json_response({"challenge": envelope.challenge or ""})
    try:
        inbound = adapter.normalize(envelope)
    except ValueError as exc:
        return _answer(400, f"invalid event: {exc}")
    inbound = await adapter.with_names(inbound)
    return await store_then_answer(manager, adapter.channel, adapter.account_id, inbound, where)
