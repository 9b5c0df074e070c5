"""Unpack a skill from a folder, a .zip or a .tar.gz into a staging folder, refusing anything that escapes.

Refused: members with absolute paths or `..`, symlinks and hardlinks whose target
lies outside, devices and fifos, and sources over the size or member limits. A folder
is held to the same limits as an archive, counted before anything is copied; what is
written is counted too, against one budget for the whole skill, so neither a file that
grows during the copy nor an archive whose headers understate its sizes gets past them.
Regular files and folders are written first and links last, so no member is ever
written through a link; then every link is resolved once more against the real
staging folder (a link inside a linked folder can point elsewhere than its name says).
"""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path
from typing import IO

from claw.errors import UsageError

MAX_MEMBERS = 5_000
MAX_TOTAL_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 16


def archive_kind(path: Path) -> str:
    """`folder`, `zip` or `tar`, from what `path` is; a usage error otherwise."""
    if path.is_dir():
        return "folder"
    name = path.name.lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        return "tar"
    raise UsageError(f"cannot install {path}: give a skill folder, a .zip or a .tar.gz")


class _Budget:
    """Bytes the whole unpacked skill may still take."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self.left = MAX_TOTAL_BYTES

    def spend(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise UsageError(f"refusing {self.source.name}: it unpacks to more than {MAX_TOTAL_BYTES:,} bytes")


def unpack(source: Path, dest: Path) -> None:
    """Copy or extract `source` into the empty folder `dest`; raises UsageError naming what is unsafe."""
    kind = archive_kind(source)
    budget = _Budget(source)
    try:
        if kind == "folder":
            _copy_folder(source, dest, budget)
        elif kind == "zip":
            _unzip(source, dest, budget)
        else:
            _untar(source, dest, budget)
    except FileExistsError as exc:
        raise UsageError(f"refusing {source.name}: {Path(exc.filename or '?').name!r} appears twice") from None
    except (OSError, shutil.Error, tarfile.TarError, zipfile.BadZipFile) as exc:
        raise UsageError(f"cannot unpack {source.name}: {exc}") from None
    _check_links(dest, source)


def member_path(name: str, archive: Path) -> str | None:
    """The member's safe relative path, None for the archive root; refuses absolute paths and `..`."""
    clean = name.replace("\\", "/")
    if clean.startswith("/") or (len(clean) > 1 and clean[1] == ":"):
        raise UsageError(f"refusing {archive.name}: member {name!r} has an absolute path")
    parts = [p for p in clean.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UsageError(f"refusing {archive.name}: member {name!r} has '..' in its path")
    return "/".join(parts) or None


def _link_target(member: str, target: str, archive: Path, kind: str) -> str:
    if target.startswith("/") or (len(target) > 1 and target[1] == ":"):
        raise UsageError(f"refusing {archive.name}: {kind} {member!r} points to an absolute path ({target})")
    base = posixpath.dirname(member) if kind == "symlink" else ""
    resolved = posixpath.normpath(posixpath.join(base, target))
    if resolved == ".." or resolved.startswith("../"):
        raise UsageError(f"refusing {archive.name}: {kind} {member!r} escapes the skill folder ({target})")
    return resolved


def _copy_folder(source: Path, dest: Path, budget: _Budget) -> None:
    _count_folder(source)

    def copy_file(src: str, dst: str) -> None:
        # O_NONBLOCK: a fifo put in place since the count must not hang the copy; fstat refuses it.
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with open(fd, "rb") as handle:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise UsageError(f"refusing {source.name}: {os.path.relpath(src, source)!r} is not a regular file")
            _write(Path(dst), handle, mode, budget)

    shutil.copytree(source, dest, symlinks=True, dirs_exist_ok=True, copy_function=copy_file)


def _count_folder(source: Path) -> None:
    """The folder against the archive limits, before anything is copied; devices and fifos are refused."""
    members = total = 0
    for dirpath, dirnames, filenames in os.walk(source):  # symlinked folders are listed, not entered
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            members += 1
            if stat.S_ISREG(info.st_mode):
                total += info.st_size
            elif not (stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                shown = os.path.relpath(path, source)
                raise UsageError(f"refusing {source.name}: {shown!r} is a device, fifo or other special file")
        _limits(source, members, total)  # folder by folder, so a huge tree is refused early


def _untar(source: Path, dest: Path, budget: _Budget) -> None:
    try:
        tar = tarfile.open(source)  # noqa: SIM115 - closed below
    except (tarfile.TarError, OSError) as exc:
        raise UsageError(f"cannot read {source.name}: {exc}") from None
    with tar:
        members = tar.getmembers()
        _limits(source, len(members), sum(m.size for m in members if m.isfile()))
        links: list[tuple[str, str, str]] = []
        for m in members:
            path = member_path(m.name, source)
            if path is None:
                continue
            if m.issym():
                _link_target(path, m.linkname, source, "symlink")
                links.append(("symlink", path, m.linkname))
            elif m.islnk():
                links.append(("hardlink", path, _link_target(path, m.linkname, source, "hardlink")))
            elif m.isdir():
                (dest / path).mkdir(parents=True, exist_ok=True)
            elif m.isfile():
                handle = tar.extractfile(m)
                if handle is None:  # cannot happen for a regular file member
                    raise UsageError(f"cannot read member {m.name!r} of {source.name}")
                _write(dest / path, handle, m.mode, budget)
            else:
                raise UsageError(f"refusing {source.name}: member {m.name!r} is a device, fifo or other special file")
        _make_links(dest, links, source)


def _unzip(source: Path, dest: Path, budget: _Budget) -> None:
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UsageError(f"cannot read {source.name}: {exc}") from None
    with archive:
        infos = archive.infolist()
        _limits(source, len(infos), sum(i.file_size for i in infos))
        links: list[tuple[str, str, str]] = []
        for info in infos:
            path = member_path(info.filename, source)
            if path is None:
                continue
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                target = archive.read(info).decode("utf-8", "replace")
                _link_target(path, target, source, "symlink")
                links.append(("symlink", path, target))
            elif info.is_dir():
                (dest / path).mkdir(parents=True, exist_ok=True)
            else:
                with archive.open(info) as handle:
                    _write(dest / path, handle, mode or 0o644, budget)
        _make_links(dest, links, source)


def _write(target: Path, handle: IO[bytes], mode: int, budget: _Budget) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "xb") as out:
        while chunk := handle.read(_CHUNK):
            budget.spend(len(chunk))
            out.write(chunk)
    os.chmod(target, 0o755 if mode & 0o111 else 0o644)


def _make_links(dest: Path, links: list[tuple[str, str, str]], source: Path) -> None:
    for kind, path, target in links:
        link = dest / path
        link.parent.mkdir(parents=True, exist_ok=True)
        if kind == "symlink":
            os.symlink(target, link)
            continue
        original = dest / target
        if not original.is_file() or original.is_symlink():
            raise UsageError(f"refusing {source.name}: hardlink {path!r} points to {target!r}, not a file in it")
        shutil.copyfile(original, link)  # a copy: a hardlink out of the staging folder is never made


def _check_links(dest: Path, source: Path) -> None:
    real_dest = os.path.realpath(dest)
    for dirpath, dirnames, filenames in os.walk(dest):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                real = os.path.realpath(path)
                if real != real_dest and not real.startswith(real_dest + os.sep):
                    shown = os.path.relpath(path, dest)
                    raise UsageError(f"refusing {source.name}: link {shown!r} escapes the skill folder")


def _limits(source: Path, members: int, total: int) -> None:
    if members > MAX_MEMBERS:
        raise UsageError(f"refusing {source.name}: {members:,} members (the limit is {MAX_MEMBERS:,})")
    if total > MAX_TOTAL_BYTES:
        raise UsageError(f"refusing {source.name}: it unpacks to {total:,} bytes (the limit is {MAX_TOTAL_BYTES:,})")
