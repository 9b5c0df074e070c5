"""`Hook`: one hook folder found on disk, and the records of copies that could not be used."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from claw.settings.hooks import HookSourceName

HookSource = HookSourceName
SOURCES: tuple[HookSource, ...] = ("workspace", "managed", "bundled")
"""Where hooks come from, highest precedence first."""

MANIFEST = "HOOK.md"
HANDLER = "handler.py"


@dataclass(frozen=True, slots=True)
class Hook:
    """A usable hook: its frontmatter and where it lives."""

    name: str
    description: str
    events: tuple[str, ...]
    """Event names (`command:new`) or bare types (`command`, meaning every action of it)."""
    source: HookSource
    directory: Path
    export: str = "handle"
    """The function in handler.py that receives the event."""
    emoji: str | None = None
    pinned: str | None = None
    """The SHA-256 of handler.py the user enabled (workspace hooks, `HookEntry.sha256`); None: not pinned."""

    @property
    def manifest(self) -> Path:
        return self.directory / MANIFEST

    @property
    def handler_file(self) -> Path:
        return self.directory / HANDLER

    def handles(self, event_name: str) -> bool:
        return event_name in self.events or event_name.partition(":")[0] in self.events


@dataclass(frozen=True, slots=True)
class InvalidHook:
    """A hook folder that could not be loaded, and why (the others load regardless)."""

    name: str
    """The folder's name (the frontmatter could not be trusted)."""
    directory: Path
    source: HookSource
    reason: str


@dataclass(frozen=True, slots=True)
class ShadowedHook:
    """A hook hidden by one of the same name from a location of higher precedence."""

    hook: Hook
    winner: Hook
