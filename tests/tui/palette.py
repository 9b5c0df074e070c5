"""Waiting on Textual's command palette (the Ctrl+P session picker, the F2 file picker) to finish a search."""

from __future__ import annotations

from typing import Any

from textual.command import Command, CommandInput, CommandList, CommandPalette, DiscoveryHit, Hit


def palette_hits(app: Any, query: str) -> list[Hit | DiscoveryHit] | None:
    """The palette's hits for `query`, best (highlighted) first, once its search for `query` has ended; else None.

    For `wait_for`: None while the palette is not up, `query` is not typed in yet, a search is still running,
    or nothing is highlighted (so Enter would not pick)."""
    screen = app.screen
    if not isinstance(screen, CommandPalette) or screen.query_one(CommandInput).value != query:
        return None
    group = CommandPalette._GATHER_COMMANDS_GROUP
    if any(worker.group == group and not worker.is_finished for worker in screen.workers):
        return None
    listed = screen.query_one(CommandList)
    if listed.highlighted != 0:
        return None
    return [option.hit for option in listed.options if isinstance(option, Command)]
