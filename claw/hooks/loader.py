"""Importing a hook's handler.py from its file path.

Each handler file becomes its own module (`claw_hook_<name>_<hash of the path>`), imported
again when the file changes. Before importing, claw checks that handler.py is a regular file
inside the hook's folder (a symlink may not lead elsewhere) that other users cannot write to;
the module runs with claw's permissions, so a hook is only as safe as the folder it came from.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
import threading
from collections.abc import Callable
from typing import Any

from claw.hooks.hook import Hook

_lock = threading.Lock()
_loaded: dict[tuple[str, str], tuple[int, int, Callable[..., Any]]] = {}


class HookLoadError(Exception):
    """handler.py could not be imported or has no handler function; the message says why."""


def load_handler(hook: Hook) -> Callable[..., Any]:
    """The hook's handler function, importing (or re-importing) handler.py as needed. Thread-safe."""
    key = (str(hook.handler_file), hook.export)
    st = _check_file(hook)
    with _lock:
        hit = _loaded.get(key)
        if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            return hit[2]
        handler = _import(hook)
        _loaded[key] = (st.st_mtime_ns, st.st_size, handler)
        return handler


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


def _import(hook: Hook) -> Callable[..., Any]:
    file = hook.handler_file
    digest = hashlib.blake2b(str(file).encode(), digest_size=6).hexdigest()
    safe = "".join(ch if ch.isalnum() else "_" for ch in hook.name)
    module_name = f"claw_hook_{safe}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise HookLoadError(f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look their module up here
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        sys.modules.pop(module_name, None)
        raise HookLoadError(f"importing {file} failed: {type(exc).__name__}: {exc}") from exc
    handler = getattr(module, hook.export, None)
    if not callable(handler):
        raise HookLoadError(f"{file} has no function {hook.export}(event)")
    return handler
