"""`HookModel`: a session's models, for a hook that wants one short completion (with failover)."""

from __future__ import annotations

import asyncio

from claw.providers.base import ModelError, TextDelta
from claw.providers.failover import ModelRouter
from claw.providers.metering import call_source
from claw.providers.text_tools.stream import reply_only


async def _no_failover_events(from_ref: str, to_ref: str, error: ModelError) -> None:
    """A hook's call is not part of a run, so there is no run to report a failover to."""


class HookModel:
    """Ask the session's model chain for one reply. Raises `ModelError` (or `TimeoutError`) on failure."""

    def __init__(self, router: ModelRouter, chain: list[str], timeout_seconds: float) -> None:
        self._router = router
        self.chain = list(chain)
        self.timeout_seconds = timeout_seconds

    async def complete(self, system: str, prompt: str) -> str:
        """The model's text reply to `prompt` under the `system` instructions (stripped, never empty)."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        parts: list[str] = []
        async with asyncio.timeout(self.timeout_seconds):
            with call_source("hook"):  # the ledger's row says a hook, not the run it fired in, asked
                async for _ref, delta in self._router.stream(self.chain, messages, [], _no_failover_events):
                    if isinstance(delta, TextDelta):
                        parts.append(delta.text)
        text = reply_only(parts).strip()  # without a reasoning model's <think> block
        if not text:
            raise ModelError("other", "the model returned an empty reply")
        return text
