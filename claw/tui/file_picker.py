"""The workspace-file picker (F2): the command palette, listing the bootstrap files to edit."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message

FILES = (
    ("soul", "SOUL.md", "who the agent is: persona, tone, boundaries"),
    ("agents", "AGENTS.md", "operating instructions and rules"),
    ("tools", "TOOLS.md", "notes on tools and conventions"),
    ("identity", "IDENTITY.md", "name, emoji, vibe"),
    ("user", "USER.md", "who you are and how to address you"),
    ("memory", "MEMORY.md", "long-term memory (searched, not injected whole)"),
)


class FilePicked(Message):
    """Posted to the screen that opened the picker: edit `name` (a short name such as `soul`)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class WorkspaceFilesProvider(Provider):
    def _pick(self, name: str) -> None:
        self.screen.post_message(FilePicked(name))

    async def discover(self) -> Hits:
        for name, file_name, about in FILES:
            yield DiscoveryHit(file_name, partial(self._pick, name), help=about)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, file_name, about in FILES:
            score = matcher.match(f"{file_name} {about}")
            if score > 0:
                yield Hit(score, matcher.highlight(file_name), partial(self._pick, name), help=about)
