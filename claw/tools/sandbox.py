"""The bubblewrap (`bwrap`) command line that runs one `exec` command in a sandbox.

What the command sees, from an empty root that bwrap makes:

- the system read-only: /usr, /etc, /opt and the /bin, /sbin, /lib* of the distro (a symlink where /usr
  is merged, a read-only bind where it is not); a fresh /proc, a minimal /dev, an empty private /tmp
  and /var/tmp;
- the workspace read-write, at its real path (symlinks resolved, so links inside it that stay inside it
  work) and at the path it was configured by, when that differs; but its `hooks/` read-only: that is
  code the gateway runs outside the sandbox (`claw.tools.host_code`);
- the skills' directories read-only (a skill's scripts run from there), and the configured extra binds;
- claw's state dirs (config, token, transcripts, gateway.db) and the user's home as empty tmpfs. Mounts
  go in order of depth, so a workspace inside the home is still there, and a state dir inside the
  workspace is still hidden; at the same path a bind wins over a mask;
- for a gateway running as root, what in /etc only root may read (/etc/shadow, /etc/ssl/private, …)
  masked too: without capabilities the command is still uid 0, the owner of those files.

And: no capabilities (bwrap keeps them for root unless told), its own PID namespace, so that the command
and everything it starts die when the command ends (the namespace's init exits) or when the gateway
dies (`--die-with-parent`); private IPC and hostname; no network but its own loopback unless the agent's
`sandbox.network` allows it. The environment is the one exec built, passed through as it is.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from claw.settings.sandbox import Bind
from claw.tools.host_code import HOST_CODE_DIRS

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""Shown read-only when they exist. /etc carries passwd, hosts, resolv.conf and the CA certificates."""
PRIVATE_TMPFS = ("/tmp", "/var/tmp")
NAMESPACE_FLAGS = (
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
)


@dataclass(frozen=True, slots=True)
class SandboxSpec:
    """Everything that decides one sandbox's mounts. Paths are host paths."""

    workspace: Path | None
    """Bound read-write and the working directory; None only for the availability probe."""
    hidden: tuple[Path, ...] = ()
    """State dirs and homes to hide (each that exists becomes an empty tmpfs)."""
    read_only: tuple[Path, ...] = ()
    """Directories shown read-only at their real path (skills)."""
    binds: tuple[Bind, ...] = ()
    network: bool = False


@dataclass(frozen=True, slots=True)
class _Mount:
    target: str
    args: tuple[str, ...]
    is_mask: bool = False


def bwrap_argv(bwrap: str, spec: SandboxSpec, command: Sequence[str]) -> list[str]:
    """`bwrap …options… -- command…` for `spec`."""
    argv = [bwrap, *NAMESPACE_FLAGS]
    if not spec.network:
        argv.append("--unshare-net")
    for mount in _ordered(_mounts(spec)):
        argv += mount.args
    workdir = os.path.realpath(spec.workspace) if spec.workspace is not None else "/"
    return [*argv, "--chdir", workdir, "--", *command]


def _mounts(spec: SandboxSpec) -> list[_Mount]:
    mounts = [_system_mount(path) for path in SYSTEM_PATHS if os.path.lexists(path)]
    mounts += [_Mount("/proc", ("--proc", "/proc")), _Mount("/dev", ("--dev", "/dev"))]
    mounts += [_Mount(path, ("--tmpfs", path), is_mask=True) for path in PRIVATE_TMPFS]
    if spec.network:
        mounts += _resolver_mounts()
    for directory in spec.read_only:
        real = os.path.realpath(directory)
        mounts.append(_Mount(real, ("--ro-bind-try", real, real)))
    for bind in spec.binds:
        option = "--bind-try" if bind.writable else "--ro-bind-try"
        mounts.append(_Mount(bind.target, (option, os.path.realpath(bind.source), bind.target)))
    if spec.workspace is not None:
        real = os.path.realpath(spec.workspace)
        mounts.append(_Mount(real, ("--bind", real, real)))
        logical = os.path.abspath(spec.workspace)
        if logical != real and not any(_within(logical, system) for system in SYSTEM_PATHS):
            mounts.append(_Mount(logical, ("--bind", real, logical)))
        mounts += _host_code_mounts(real, logical)
    for directory in spec.hidden:
        real = os.path.realpath(directory)
        if os.path.isdir(real):
            mounts.append(_Mount(real, ("--tmpfs", real), is_mask=True))
    if os.geteuid() == 0:
        mounts += _root_only("/etc")
    return mounts


def _host_code_mounts(real: str, logical: str) -> list[_Mount]:
    """The workspace's host-code folders (`claw.tools.host_code`: its hooks) read-only over the workspace's
    writable bind, at both paths the workspace is shown at: the command may read a hook, never change what
    the gateway imports outside the sandbox."""
    mounts = []
    for name in HOST_CODE_DIRS:
        source = os.path.realpath(os.path.join(real, name))
        if not os.path.isdir(source) or not _within(source, real):
            continue  # missing (then nothing runs from it until the user enables a hook there), or a link out
        for shown in dict.fromkeys((real, logical)):
            target = os.path.join(shown, name)
            mounts.append(_Mount(target, ("--ro-bind", source, target)))
    return mounts


def _system_mount(path: str) -> _Mount:
    if os.path.islink(path):  # /bin -> usr/bin on a merged-/usr distro: the same link inside
        return _Mount(path, ("--symlink", os.readlink(path), path))
    return _Mount(path, ("--ro-bind", path, path))


@functools.cache
def _root_only(top: str) -> tuple[_Mount, ...]:
    """Masks for what under `top` other users may not read: a folder becomes an empty tmpfs, a file an
    unopenable device node (binds are nodev). Walked once per process."""
    masks = []
    for folder, dirs, files in os.walk(top):
        for name in list(dirs):
            path = os.path.join(folder, name)
            if _private(path, stat.S_ISDIR):
                masks.append(_Mount(path, ("--tmpfs", path), is_mask=True))
                dirs.remove(name)  # nothing below it to mask
        for name in files:
            path = os.path.join(folder, name)
            if _private(path, stat.S_ISREG):
                masks.append(_Mount(path, ("--ro-bind", "/dev/null", path), is_mask=True))
    return tuple(masks)


def _private(path: str, kind: Callable[[int], bool]) -> bool:
    """`path` is of `kind` (not a symlink) and others may not read it."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return kind(mode) and not mode & stat.S_IROTH


def _resolver_mounts() -> list[_Mount]:
    """/etc/resolv.conf may be a link into /run (systemd-resolved): show its target too."""
    real = os.path.realpath("/etc/resolv.conf")
    if real == "/etc/resolv.conf" or any(_within(real, system) for system in SYSTEM_PATHS):
        return []
    return [_Mount(real, ("--ro-bind-try", real, real))]


def _ordered(mounts: list[_Mount]) -> list[_Mount]:
    """Shallow before deep (a deeper mount shows through a shallower one); at one path, a mask first, so
    that an explicit bind of that very path wins. The sort is stable: otherwise the order given."""
    unique = list(dict.fromkeys(mounts))  # a home that is also the state dir is masked once
    return sorted(unique, key=lambda m: (len(PurePosixPath(m.target).parts), not m.is_mask))


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
