"""Bootstrap files: the workspace markdown that becomes the agent's identity and rules.

Each file is capped (20,000 chars by default) by keeping 70 % of the cap from the
head and 20 % from the tail around a visible marker that names the file; the
files share a total budget, consumed in order. Empty files are skipped.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from claw.agent.env import AgentEnv
from claw.agent.run_request import RunRequest
from claw.safe_read import RefusedFile, read_agent_text, skip_warning

log = logging.getLogger(__name__)

BOOTSTRAP_FILES = ("SOUL.md", "AGENTS.md", "TOOLS.md", "IDENTITY.md", "USER.md")
MIN_REMAINING_CHARS = 64


@dataclass(frozen=True, slots=True)
class BootstrapFile:
    name: str
    path: Path
    raw_chars: int
    content: str

    @property
    def truncated(self) -> bool:
        return len(self.content) < self.raw_chars


def trim_bootstrap(name: str, text: str, max_chars: int) -> str:
    """`text` if it fits in `max_chars`, else 70 % head + marker + 20 % tail."""
    text = text.rstrip()
    if len(text) <= max_chars:
        return text
    head = text[: int(max_chars * 0.7)]
    tail = text[len(text) - int(max_chars * 0.2) :]
    marker = (
        f"\n\n[...truncated, read {name} for full content...]\n"
        f"…(truncated {name}: kept {len(head)}+{len(tail)} chars of {len(text)})…\n\n"
    )
    return head + marker + tail


class BootstrapLoader:
    """Reads a workspace's bootstrap files, re-reading only those whose identity, mtime or size changed.

    The agent can write these files, so each is read by `claw.safe_read`'s rule: a link out of the
    workspace, a FIFO or device, a hard link and an oversized file are skipped with one warning.
    """

    def __init__(self, names: tuple[str, ...] = BOOTSTRAP_FILES) -> None:
        self._names = names
        self._cache: dict[Path, tuple[tuple[int, int, int, int], str | None]] = {}

    def load(
        self, workspace: Path, max_chars: int, total_max_chars: int, *, allow_hardlinks: bool = False
    ) -> list[BootstrapFile]:
        files: list[BootstrapFile] = []
        remaining = total_max_chars
        for name in self._names:
            text = self._read(workspace, name, allow_hardlinks)
            if not text or not text.strip():
                continue
            if remaining < MIN_REMAINING_CHARS:
                break
            content = trim_bootstrap(name, text, min(max_chars, remaining))
            remaining -= len(content)
            files.append(BootstrapFile(name, workspace / name, len(text.rstrip()), content))
        return files

    def _read(self, workspace: Path, name: str, allow_hardlinks: bool) -> str | None:
        path = workspace / name
        try:
            st = os.stat(path)  # only to know whether it changed; the read itself follows nothing out
        except OSError:
            self._cache.pop(path, None)
            return None
        stamp = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
        hit = self._cache.get(path)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        try:
            text = read_agent_text(workspace, name, allow_hardlinks=allow_hardlinks)
        except RefusedFile as refused:
            skip_warning(refused, "bootstrap file")  # once per change: the refusal is cached too
            text = None
        self._cache[path] = (stamp, text)
        return text


class BootstrapFilter(Protocol):
    """Changes one run's bootstrap files before they are injected (the hooks' `agent:bootstrap`)."""

    async def __call__(self, run: RunRequest, env: AgentEnv, files: list[BootstrapFile]) -> list[BootstrapFile]: ...


async def filter_for_run(
    filters: list[BootstrapFilter],
    run: RunRequest,
    env: AgentEnv,
    load: Callable[[], Awaitable[list[BootstrapFile]]],
) -> list[BootstrapFile] | None:
    """The run's files: what `filters` make of the files `load` reads (a failing filter changes nothing),
    to be injected into every prompt of the run; None with no filters, so each prompt build reads them."""
    if not filters:
        return None
    files = await load()
    for bootstrap_filter in filters:
        try:
            files = await bootstrap_filter(run, env, list(files))
        except Exception:  # an extension's bug must not break the turn
            log.exception("bootstrap filter %r failed; keeping the files as they were", bootstrap_filter)
    return files
