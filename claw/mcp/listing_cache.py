"""The last tool listing of each server, kept on disk, so that a turn need not wait for a server to start.

A one-shot `claw agent -m` (and the console's first turn) starts its servers and, without waiting for them,
offers the tools of those up and, for those still starting, the tools they listed last time (`claw mcp test`
lists them too). A call to such a tool waits for its server. A listing counts only for the settings it was
made with (a changed command or args may be another server): it is keyed by a hash of them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claw.settings.mcp import McpServerSettings

log = logging.getLogger(__name__)


def fingerprint(settings: McpServerSettings) -> str:
    return hashlib.sha256(json.dumps(settings.model_dump(mode="json"), sort_keys=True).encode()).hexdigest()[:16]


def load(path: Path, settings: McpServerSettings) -> list[Any]:
    """The SDK `Tool`s last listed with these settings; [] when there is no such listing (or it is unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("settings") != fingerprint(settings):
        return []
    from mcp_types import Tool

    try:
        return [Tool.model_validate(raw) for raw in data.get("tools", [])]
    except ValueError:
        return []


def save(path: Path, settings: McpServerSettings, tools: list[Any]) -> None:
    """Written atomically (temp file, replace), 0600; a failure only costs the next turn a wait."""
    data = {"settings": fingerprint(settings), "tools": [t.model_dump(mode="json", by_alias=True) for t in tools]}
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(data, file)
        os.replace(temp, path)
    except OSError as exc:
        log.debug("could not keep the tool listing of %s: %s", path.stem, exc)
        with contextlib.suppress(OSError):
            temp.unlink()
