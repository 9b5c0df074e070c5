"""The one rule for files claw reads on the host from a place the agent can write.

The agent writes its workspace (with `write`, `edit` and every sandboxed `exec`), so anything there can
be planted: `ln -s ~/.ssh/id_rsa USER.md`, `mkfifo USER.md`, a 10 GB MEMORY.md. claw itself reads some
of those files outside the sandbox (bootstrap files into every prompt, memory notes into the index,
SKILL.md and HOOK.md manifests, `workspace.read`), so every such read comes here and gets:

- no links out: the path is walked one directory descriptor at a time with `O_NOFOLLOW`
  (`claw.tools.path_walk`), a symlink followed only while it stays inside the root, and a file
  with more than one hard link refused (it may be a file from outside);
- only a regular file: judged by `fstat` on the open descriptor, opened with `O_NONBLOCK`, so a
  FIFO, a device or a directory is refused and never waited on;
- a size cap: a bigger file is refused, and no more than the cap is ever read;
- for async callers, a read in a thread under a timeout, so a slow disk cannot stall the event loop.

A refused file raises `RefusedFile`, whose message names the file and why; callers skip the file
with one warning line (the log, and `claw doctor` / `claw workspace show` where the user looks).
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from claw.errors import ClawError, NotFoundError
from claw.tools.safe_open import open_regular

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 4 * 1024 * 1024
"""The default cap: far above any bootstrap file or note (those are cut to 20,000 chars in the prompt)."""
READ_TIMEOUT = 10.0
"""Seconds an async read may take before the file is treated as refused."""


class RefusedFile(ClawError):
    """A file the agent could have planted was not read; the message names it and says why."""


def read_agent_bytes(
    root: Path,
    path: str | Path,
    *,
    max_bytes: int = MAX_FILE_BYTES,
    allow_hardlinks: bool = False,
    extra_roots: tuple[Path, ...] = (),
) -> bytes | None:
    """The bytes of `path` (relative to `root` unless absolute), or None when it does not exist.

    Raises `RefusedFile` for a link out of `root` (and `extra_roots`), anything but a regular file,
    a hard-linked file (unless `allow_hardlinks`) and a file over `max_bytes`.
    """
    shown = str(path)
    try:
        opened = open_regular(root, shown, tool="read", allow_hardlinks=allow_hardlinks, extra_roots=extra_roots)
    except NotFoundError:
        return None
    except ClawError as exc:
        raise RefusedFile(f"{_where(root, shown)}: {_reason(exc.message)}") from None
    except OSError as exc:
        raise RefusedFile(f"{_where(root, shown)}: cannot open it: {exc.strerror or exc}") from None
    with opened:
        if opened.stat.st_size > max_bytes:
            raise RefusedFile(f"{_where(root, shown)}: {_too_big(opened.stat.st_size, max_bytes)}")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes and (chunk := os.read(opened.fd, min(1 << 20, max_bytes + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:  # it grew after the fstat
            raise RefusedFile(f"{_where(root, shown)}: {_too_big(size, max_bytes)}")
        return b"".join(chunks)


def read_agent_text(
    root: Path, path: str | Path, *, max_bytes: int = MAX_FILE_BYTES, allow_hardlinks: bool = False
) -> str | None:
    """`read_agent_bytes` decoded as UTF-8 (bad bytes replaced)."""
    data = read_agent_bytes(root, path, max_bytes=max_bytes, allow_hardlinks=allow_hardlinks)
    return None if data is None else data.decode("utf-8", errors="replace")


async def read_agent_text_async(
    root: Path, path: str | Path, *, timeout: float = READ_TIMEOUT, allow_hardlinks: bool = False
) -> str | None:
    """`read_agent_text` in a thread, under `timeout` (then `RefusedFile`): the loop never waits on a disk."""
    try:
        async with asyncio.timeout(timeout):
            return await asyncio.to_thread(read_agent_text, root, path, allow_hardlinks=allow_hardlinks)
    except TimeoutError:
        raise RefusedFile(f"{_where(root, str(path))}: reading it took over {timeout:g}s") from None


def skip_warning(refused: RefusedFile, what: str) -> str:
    """The one line logged for a refused file: `skipped <what> …: <why>`."""
    line = f"skipped {what}: {refused.message}"
    log.warning("%s", line)
    return line


def _where(root: Path, shown: str) -> str:
    return shown if os.path.isabs(shown) else str(Path(root, shown))


def _reason(message: str) -> str:
    """The open's refusal, without the tool prefix the file tools give it, in words about a planted file."""
    message = message.removeprefix("read: ")
    if message.startswith("path escapes workspace"):
        return "it is a link that leads out of the workspace; refusing to follow it"
    if " is not a regular file" in message:
        return "it is not a regular file (a FIFO, socket or device); refusing to open it"
    if " is a directory" in message:
        return "it is a directory, not a file"
    return message


def _too_big(size: int, cap: int) -> str:
    return f"it is {size:,} bytes, over the {cap:,}-byte limit for files claw reads from the workspace"
