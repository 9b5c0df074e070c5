"""session-memory: note what the ended session was about (the work is in claw.hooks.session_memory)."""

from __future__ import annotations

from claw.hooks.events import CommandEvent
from claw.hooks.session_memory import save_session_summary


async def handle(event: CommandEvent) -> None:
    await save_session_summary(event)
