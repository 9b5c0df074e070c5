"""`AllowEntry`: one allowlist entry — a binary, and which of its invocations it allows."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AllowEntry:
    """A binary plus an argument pattern: its plain invocations (`args` None), or exactly `args`.

    A plain entry never covers the binary's dangerous forms (`claw/tools/command_rules.py`):
    an entry for `/usr/bin/git` allows `git log`, not `git -c alias.x='!cmd' x`. Those need an
    exact entry, which "allow always" records for them: the resolved binary and the argument
    words as written, quotes included, so that `rm '*'` never stands in for `rm *`.
    """

    pattern: str
    """Plain: a case-insensitive glob over the binary's resolved path. Exact: the resolved path itself."""
    args: tuple[str, ...] | None = None

    @property
    def exact(self) -> bool:
        return self.args is not None

    def describe(self) -> str:
        """How the entry reads to a person: `/usr/bin/git` or `/usr/bin/git -c … x (exactly)`."""
        if self.args is None:
            return self.pattern
        return " ".join((self.pattern, *self.args)) + " (exactly)"
