"""Confine a path that a tool was given to the agent's workspace: the rule, and a name for where it leads.

The rule is simple and fail-closed: resolve the path the way the kernel would
(`..`, symlinks in every component, including a dangling symlink at the end),
then require the *real* location to sit inside the workspace's real location.
Anything the rule cannot vouch for — `~` prefixes, NUL bytes — is refused
before resolution (`checked_path`).

`resolve_in_workspace` answers "where does this name lead now?", which is what
the memory index needs to name a file. It cannot make a later open by that name
safe: a directory on the way may be swapped for a symlink in between. The file
tools therefore never open what it returns; they walk the path one directory
descriptor at a time (`claw.tools.path_walk`), which applies the same rule to
each component as it opens it.
"""

from __future__ import annotations

import os
from pathlib import Path

from claw.errors import ClawError, NotFoundError, PathEscapeError


def resolve_in_workspace(
    workspace: Path,
    path: str,
    *,
    extra_roots: tuple[Path, ...] = (),
    must_exist: bool = False,
) -> Path:
    """The real, absolute location of `path`, which must lie inside `workspace` (or an extra root).

    `path` is relative to the workspace unless absolute. `extra_roots` widen the
    confinement for reads only (installed and bundled skills); callers that write
    must not pass them. With `must_exist`, a missing target raises `NotFoundError`.
    Raises `PathEscapeError` for `~`/`~user` prefixes, NUL bytes, and anything whose
    resolved location (after `..` and symlinks, dangling or not) is outside.
    """
    shown = checked_path(path)
    root = Path(os.path.realpath(workspace))
    candidate = Path(path) if os.path.isabs(path) else root / path
    real = _resolve(candidate)
    roots = (root, *(Path(os.path.realpath(extra)) for extra in extra_roots))
    if not any(_is_within(real, allowed) for allowed in roots):
        raise PathEscapeError(shown)
    if must_exist and not real.exists():
        raise NotFoundError(f"no such file: {shown}")
    return real


def checked_path(path: str) -> str:
    """`path` as it may appear in a message, once it is known to be a path the rule can judge.

    Raises `ClawError` for an empty path and `PathEscapeError` for a NUL byte or a `~`/`~user`
    prefix (the shell would expand it; the tools would not, so it can only mislead).
    """
    if not isinstance(path, str) or not path.strip():
        raise ClawError("path is required: give a file path relative to the workspace")
    shown = _printable(path)
    if "\x00" in path or path.startswith("~"):
        raise PathEscapeError(shown)
    return shown


def _resolve(candidate: Path) -> Path:
    """Resolve every symlink that exists, the final component included.

    `os.path.realpath` (non-strict) follows a dangling symlink to the place it
    names, which is exactly what a write through that name would create, and it
    applies `..` after resolving the component before it, as the kernel does.
    A symlink loop leaves a path that still contains the link; opening it later
    fails with ELOOP, which is an error, never an escape.
    """
    return Path(os.path.realpath(candidate))


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _printable(path: str) -> str:
    """The path as it may appear in a message: control characters made visible."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in path)
