"""Importing a hook's handler.py from its file path.

Each handler file becomes its own module (`claw_hook_<name>_<hash of the path>`), imported
again when the file changes. Before importing, claw checks that handler.py is a regular file
inside the hook's folder (a symlink may not lead elsewhere) that other users cannot write to;
the module runs with claw's permissions, so a hook is only as safe as the folder it came from.

The file is read once, by the rule for agent-writable files (`claw.safe_read`: no link out, no FIFO,
capped), and exactly the bytes read are compiled, so what was checked is what runs. A workspace
hook is pinned (`Hook.pinned`, written by `claw hooks enable`): a handler.py whose hash no longer
matches is not run. If the approved code was imported before, that code keeps running (with a
warning); otherwise the hook fails with a message that names the file and the command to approve it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

from claw.errors import ClawError
from claw.hooks.hook import HANDLER, Hook
from claw.safe_read import RefusedFile, read_agent_bytes

log = logging.getLogger(__name__)

MAX_HANDLER_BYTES = 1024 * 1024
_lock = threading.Lock()
_loaded: dict[tuple[str, str], tuple[str, Callable[..., Any]]] = {}
"""(handler.py, export) → (the SHA-256 of the source imported, its handler function)."""


class HookLoadError(ClawError):
    """handler.py could not be imported or has no handler function; the message says why."""


def handler_digest(hook: Hook) -> str:
    """The hex SHA-256 of the hook's handler.py, read by the agent-writable rule; raises HookLoadError."""
    return hashlib.sha256(_read(hook)).hexdigest()


def load_handler(hook: Hook) -> Callable[..., Any]:
    """The hook's handler function, importing (or re-importing) handler.py as needed. Thread-safe."""
    key = (str(hook.handler_file), hook.export)
    _check_file(hook)
    source = _read(hook)
    digest = hashlib.sha256(source).hexdigest()
    with _lock:
        hit = _loaded.get(key)
        if hit is not None and hit[0] == digest:
            return hit[1]
        if hook.pinned is not None and digest != hook.pinned:
            if hit is not None and hit[0] == hook.pinned:
                log.warning("%s changed since it was enabled; still running the enabled code", hook.handler_file)
                return hit[1]
            raise HookLoadError(
                f"{hook.handler_file} changed since `claw hooks enable {hook.name}` approved it; read it, then run "
                f"`claw hooks enable {hook.name}` to run the new code"
            )
        handler = _import(hook, source)
        _loaded[key] = (digest, handler)
        return handler


def _read(hook: Hook) -> bytes:
    directory = hook.directory
    try:
        source = read_agent_bytes(
            directory.parent,
            f"{directory.name}/{HANDLER}",
            max_bytes=MAX_HANDLER_BYTES,
            allow_hardlinks=hook.source != "workspace",
        )
    except RefusedFile as exc:
        raise HookLoadError(f"not importing {HANDLER}: {exc.message}") from None
    if source is None:
        raise HookLoadError(f"cannot read {hook.handler_file}: it is gone")
    return source


def _check_file(hook: Hook) -> os.stat_result:
    file = hook.handler_file
    try:
        st = os.stat(file)
    except OSError as exc:
        raise HookLoadError(f"cannot read {file}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise HookLoadError(f"{file} is not a regular file")
    real_dir = os.path.realpath(hook.directory)
    if not os.path.realpath(file).startswith(real_dir.rstrip(os.sep) + os.sep):
        raise HookLoadError(f"{file} resolves outside its hook folder (symlink)")
    if st.st_mode & stat.S_IWOTH:
        raise HookLoadError(f"{file} is writable by every user; run `chmod o-w {file}` if you trust it")
    return st


def _import(hook: Hook, source: bytes) -> Callable[..., Any]:
    file = hook.handler_file
    digest = hashlib.blake2b(str(file).encode(), digest_size=6).hexdigest()
    safe = "".join(ch if ch.isalnum() else "_" for ch in hook.name)
    module_name = f"claw_hook_{safe}_{digest}"
    module = types.ModuleType(module_name)
    module.__file__ = str(file)
    sys.modules[module_name] = module  # dataclasses and pickling look their module up here
    try:
        code = compile(source, str(file), "exec", dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102 - the handler the user enabled, exactly the bytes checked
    except BaseException as exc:
        sys.modules.pop(module_name, None)
        raise HookLoadError(f"importing {file} failed: {type(exc).__name__}: {exc}") from exc
    handler = getattr(module, hook.export, None)
    if not callable(handler):
        raise HookLoadError(f"{file} has no function {hook.export}(event)")
    return handler
