"""Edit-streaming: while a run writes its reply, one placeholder message shows it, edited at most once
per `interval` (1 s); the final text then replaces it through the outbox (an edit of the placeholder).

Best effort: if the placeholder cannot be sent, the reply simply goes out as a normal message at
the end; a failed edit is skipped. `finish` never cuts a call in flight (it waits for it), so a
late preview can never land after the final text.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from claw.channels.adapter import ChannelAdapter, SendError
from claw.vocab.run_event import Stream

if TYPE_CHECKING:
    from claw.gateway.host import RunWatch

log = logging.getLogger(__name__)

EDIT_INTERVAL_SECONDS = 1.0
CURSOR = " …"


class EditStreamer:
    def __init__(
        self,
        runs: RunWatch,
        adapter: ChannelAdapter,
        reply_to: Mapping[str, Any],
        run_id: str,
        *,
        interval: float = EDIT_INTERVAL_SECONDS,
    ) -> None:
        self._runs = runs
        self._adapter = adapter
        self._reply_to = reply_to
        self._run_id = run_id
        self.interval = interval
        self.message_id: str | None = None
        self.pushes: list[float] = []
        """When each preview went out (monotonic), for the throttle's tests."""
        self._text = ""
        self._dirty = asyncio.Event()
        self._lock = asyncio.Lock()
        self._closing = False
        self._failed = False
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> EditStreamer:
        self._tasks = [asyncio.create_task(self._consume()), asyncio.create_task(self._flush())]
        return self

    async def finish(self) -> str | None:
        """Stop previewing; the placeholder's message id (None if there is none)."""
        self._closing = True
        consume, flush = self._tasks
        consume.cancel()
        async with self._lock:  # a preview in flight completes first
            flush.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return None if self._failed else self.message_id

    async def _consume(self) -> None:
        replay, sub = self._runs.subscribe_run(self._run_id)
        async with sub:
            last = 0
            for event in replay:
                last = self._take(event.seq, event.stream, event.data, last)
            async for event in sub:
                if event.seq > last:
                    last = self._take(event.seq, event.stream, event.data, last)
                if event.is_terminal:
                    return

    def _take(self, seq: int, stream: Stream, data: dict[str, Any], last: int) -> int:
        if stream == Stream.ASSISTANT and data.get("delta"):
            self._text += data["delta"]
            self._dirty.set()
        return seq

    async def _flush(self) -> None:
        while not self._failed:
            await self._dirty.wait()
            if self.message_id is not None and self.pushes:
                await asyncio.sleep(max(0.0, self.pushes[-1] + self.interval - time.monotonic()))
            self._dirty.clear()
            async with self._lock:
                if self._closing:
                    return
                await self._push(self._preview())

    def _preview(self) -> str:
        limit = self._adapter.limits.max_length
        text = self._text.strip()
        text = text if len(text) + len(CURSOR) <= limit // 2 else text[: limit // 2 - len(CURSOR)]
        text += CURSOR  # kept well under the limit: escaping may lengthen it
        fmt = self._adapter.limits.text_format
        if fmt == "slack-mrkdwn":  # Slack reads &, < and > as markup, in a half-written reply too
            return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return html.escape(text, quote=False) if fmt == "telegram-html" else text

    async def _push(self, text: str) -> None:
        try:
            if self.message_id is None:
                sent = await self._adapter.send(self._reply_to, text, idempotency_key=f"preview-{self._run_id}")
                self.message_id = sent.message_id
                self._failed = sent.message_id is None
            else:
                await self._adapter.update(self._reply_to, self.message_id, text)
        except SendError as exc:
            log.info("streaming preview for run %s: %s", self._run_id, exc.reason)
            self._failed = self.message_id is None
        self.pushes.append(time.monotonic())
