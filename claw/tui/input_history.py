"""`InputHistory`: what Up/Down recall in the prompt, like a shell's history."""

from __future__ import annotations

MAX_ENTRIES = 500


class InputHistory:
    """Earlier inputs, oldest first, with a cursor for browsing and the draft being typed.

    Browsing starts at the end; `previous` saves the current draft so that walking
    back past the newest entry restores it, as readline does.
    """

    def __init__(self, entries: list[str] | None = None) -> None:
        self._entries: list[str] = list(entries or [])[-MAX_ENTRIES:]
        self._cursor = len(self._entries)
        self._draft = ""

    @property
    def entries(self) -> list[str]:
        return list(self._entries)

    @property
    def browsing(self) -> bool:
        return self._cursor < len(self._entries)

    def add(self, text: str) -> None:
        """Remember a submitted input (a repeat of the newest entry is stored once)."""
        if text.strip() and (not self._entries or self._entries[-1] != text):
            self._entries.append(text)
            del self._entries[:-MAX_ENTRIES]
        self.reset()

    def seed(self, older: list[str]) -> None:
        """Put inputs from before this session (a loaded transcript) in front of the history."""
        merged = [text for text in older if text.strip()] + self._entries
        self._entries = merged[-MAX_ENTRIES:]
        self.reset()

    def reset(self) -> None:
        self._cursor = len(self._entries)
        self._draft = ""

    def previous(self, current: str) -> str | None:
        """The entry before the cursor, or None at the oldest one."""
        if self._cursor == 0:
            return None
        if self._cursor == len(self._entries):
            self._draft = current
        self._cursor -= 1
        return self._entries[self._cursor]

    def next(self) -> str | None:
        """The entry after the cursor; the saved draft after the newest; None when not browsing."""
        if self._cursor >= len(self._entries):
            return None
        self._cursor += 1
        if self._cursor == len(self._entries):
            return self._draft
        return self._entries[self._cursor]
