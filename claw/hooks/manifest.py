"""Reading a hook's HOOK.md: YAML frontmatter with `name`, `description` and `events`.

The events may be given at the top level or, as OpenClaw writes them, under
`metadata.openclaw` (or `metadata.claw`), which may also hold `export` and `emoji`:

    ---
    name: command-logger
    description: Append every command to logs/commands.log
    events: [command]
    ---
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from claw.errors import ClawError
from claw.hooks.hook import HANDLER, MANIFEST, Hook, HookSource
from claw.safe_read import RefusedFile, read_agent_bytes
from claw.skills.frontmatter import FrontmatterError, read_frontmatter

MAX_MANIFEST_BYTES = 64_000
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_EVENT = re.compile(r"^[a-z][a-z_]*(:[a-z][a-z_:]*)?$")
_EXPORT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class HookManifestError(ClawError, ValueError):
    """HOOK.md is missing, unreadable or does not describe a hook; the message says why."""


def parse_hook(directory: Path, source: HookSource) -> Hook:
    """The hook in `directory`; raises HookManifestError."""
    # A workspace hook is agent-writable: read by that rule (no link out of its location, no FIFO, capped).
    try:
        raw = read_agent_bytes(
            directory.parent,
            f"{directory.name}/{MANIFEST}",
            max_bytes=MAX_MANIFEST_BYTES,
            allow_hardlinks=source != "workspace",
        )
    except RefusedFile as exc:
        raise HookManifestError(f"skipped {MANIFEST}: {exc.message}") from None
    if raw is None:
        raise HookManifestError(f"cannot read {MANIFEST}: it is gone")
    try:
        data, _body = read_frontmatter(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise HookManifestError(f"{MANIFEST} is not UTF-8 text") from None
    except FrontmatterError as exc:
        raise HookManifestError(str(exc)) from None
    meta = _metadata(data)
    name = _text(data.get("name"), "name") or directory.name
    if not _NAME.match(name):
        raise HookManifestError(f"invalid name {name!r}: use 1-64 of letters, digits, '_' or '-'")
    events = _events(data.get("events", meta.get("events")))
    export = _text(data.get("export", meta.get("export")), "export") or "handle"
    if not _EXPORT.match(export):
        raise HookManifestError(f"invalid export {export!r}: the name of a function in {HANDLER}")
    if not (directory / HANDLER).is_file():
        raise HookManifestError(f"no {HANDLER} next to {MANIFEST}")
    return Hook(
        name=name,
        description=_text(data.get("description"), "description") or "",
        events=events,
        source=source,
        directory=directory,
        export=export,
        emoji=_text(data.get("emoji", meta.get("emoji")), "emoji"),
    )


def _metadata(data: dict[str, Any]) -> dict[str, Any]:
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return {}
    for key in ("claw", "openclaw"):
        if isinstance(meta.get(key), dict):
            return meta[key]
    return meta


def _text(value: Any, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise HookManifestError(f"'{key}' must be a string, not {type(value).__name__}")
    return value.strip() or None


def _events(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list) or not value:
        raise HookManifestError("missing 'events': list the events the hook handles, e.g. events: [command:new]")
    events: list[str] = []
    for item in value:
        if not isinstance(item, str) or not _EVENT.match(item.strip()):
            raise HookManifestError(f"invalid event {item!r}: use names such as command:new or run:end")
        events.append(item.strip())
    return tuple(dict.fromkeys(events))
