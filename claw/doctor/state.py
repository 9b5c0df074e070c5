"""`claw doctor` checks of the state on disk: the claw home, private modes, the token, config.toml, temp files.

Each check has a finder that says what is wrong; `--fix` repairs exactly what the finder found
(modes and stale temp files), so what is reported and what is repaired never drift apart.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from claw.config import Config, load_config
from claw.errors import ConfigError
from claw.finding import Finding, fail, listed, ok, warn
from claw.gateway_token import TOKEN_ENV, TOKEN_FILE_FIX
from claw.paths import Paths
from claw.store.atomic import STALE_TEMP_SECONDS, temp_target

FIX_COMMAND = "claw doctor --fix"
DIR_MODE, FILE_MODE = 0o700, 0o600

# Folders under the data dir that hold the user's own content (workspaces) or installed code (skills, hooks,
# 0755 by design): their own mode is checked, what is inside them is not ours to tighten.
_NOT_DESCENDED = re.compile(r"^(workspace(-.+)?|skills|hooks)$")

_CONFIG_KEY = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")
_SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})


@dataclass(frozen=True, slots=True)
class LoosePath:
    """A state folder or secret file that others can read."""

    path: Path
    mode: int
    wanted: int

    def describe(self) -> str:
        return f"{self.path} ({self.mode:04o})"


def state_dirs(paths: Paths) -> list[Path]:
    return list(dict.fromkeys([paths.data_dir, paths.config_dir]))


def loose_dirs(paths: Paths) -> list[LoosePath]:
    """State folders (the config and data dirs and the folders below the data dir) open to group or others."""
    return [loose for folder in _state_folders(paths) if (loose := _loose(folder, stat.S_ISDIR, DIR_MODE))]


def _state_folders(paths: Paths) -> Iterator[Path]:
    yield from (d for d in state_dirs(paths) if d.is_dir())
    for here, dir_names, _file_names in _walk_state(paths):
        yield from (here / name for name in dir_names)


def _walk_state(paths: Paths) -> Iterator[tuple[Path, list[str], list[str]]]:
    """os.walk of the data dir without symlinked folders (a link is not ours to chmod: it would change its
    target), nor what is inside the user's own folders (`_NOT_DESCENDED`)."""
    if not paths.data_dir.is_dir():
        return
    for parent, dir_names, file_names in os.walk(paths.data_dir):
        here = Path(parent)
        dir_names[:] = sorted(name for name in dir_names if not (here / name).is_symlink())
        yield here, list(dir_names), sorted(file_names)
        if here == paths.data_dir:
            dir_names[:] = [name for name in dir_names if not _NOT_DESCENDED.match(name)]


def loose_files(paths: Paths) -> list[LoosePath]:
    """The token and config files, and every file claw keeps in the data dir (logs, databases, transcripts),
    when group or others can read them. Temp files are the temp check's (an interrupted write left them)."""
    files = [paths.token_file, paths.config_file]
    for here, _dir_names, file_names in _walk_state(paths):
        files += [here / name for name in file_names if temp_target(name) is None]
    return [loose for file in dict.fromkeys(files) if (loose := _loose(file, stat.S_ISREG, FILE_MODE))]


def _loose(path: Path, is_kind: Callable[[int], bool], wanted: int) -> LoosePath | None:
    """`path` as a LoosePath when it is of the kind (not a link) and group or others have any access."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    return LoosePath(path, stat.S_IMODE(mode), wanted) if is_kind(mode) and mode & 0o077 else None


def check_home(paths: Paths) -> Finding:
    dirs = state_dirs(paths)
    name = "claw home" if len(dirs) == 1 else "state dirs"
    missing = [str(d) for d in dirs if not d.is_dir()]
    if missing:
        return fail(name, f"{listed(missing)} does not exist", "claw init")
    # The token and config files have checks of their own.
    dirs_open = loose_dirs(paths)
    files = [p for p in loose_files(paths) if p.path not in (paths.token_file, paths.config_file)]
    loose = [*dirs_open, *files]
    if loose:
        counts = [_count(len(found), noun) for found, noun in ((dirs_open, "folder"), (files, "file")) if found]
        shown = listed([p.describe() for p in loose])
        detail = f"{' and '.join(counts)} of the state open to other users: {shown}"
        return warn(name, detail, f"{FIX_COMMAND} (makes state folders {DIR_MODE:04o}, files {FILE_MODE:04o})")
    return ok(name, f"{' and '.join(str(d) for d in dirs)}, private ({DIR_MODE:04o})")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def check_token(paths: Paths) -> Finding:
    name, file = "gateway token", paths.token_file
    from_env = bool(os.environ.get(TOKEN_ENV, "").strip())
    try:
        st = file.lstat()
    except FileNotFoundError:
        if from_env:
            return ok(name, f"from {TOKEN_ENV} (no token file)")
        return warn(name, f"{file} does not exist (`claw gateway run` would create one)", "claw init")
    if not stat.S_ISREG(st.st_mode):
        return fail(name, f"{file} is not a regular file", "move it aside, then run `claw init`")
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077:
        return warn(name, f"{file} is {mode:04o}: other users can read it", f"{FIX_COMMAND} (makes it 0600)")
    if from_env:
        return ok(name, f"from {TOKEN_ENV} (the file is not used), 0600")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return fail(name, f"{file} is not UTF-8 text: the gateway cannot start with it", TOKEN_FILE_FIX)
    except OSError as exc:
        return fail(name, f"cannot read {file}: {exc.strerror}", TOKEN_FILE_FIX)
    if not text.strip():
        return warn(name, f"{file} is empty", TOKEN_FILE_FIX)
    return ok(name, f"{file}, 0600")


def check_database(paths: Paths) -> Finding:
    """gateway.db opens and SQLite's `quick_check` finds it whole (read-only: a running gateway may use it)."""
    import sqlite3

    from claw.store.db import damaged, repair_hint

    name, file = "gateway db", paths.gateway_db
    if not file.exists():
        return ok(name, f"no {file.name} yet (made on first use)")
    try:
        with contextlib.closing(sqlite3.connect(f"{file.as_uri()}?mode=ro", uri=True, timeout=5)) as conn:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
    except sqlite3.Error as exc:
        if damaged(exc):
            return fail(name, f"{file} is damaged ({exc})", repair_hint(file))
        return warn(name, f"cannot check {file}: {exc}", "run `claw doctor` again once the gateway is idle")
    if problems != ["ok"]:
        return fail(name, f"{file} is damaged ({'; '.join(problems)})", repair_hint(file))
    return ok(name, f"{file}, intact")


def check_config(paths: Paths, agent_id: str) -> tuple[Finding, Config | None]:
    """The config check, and the loaded config (None when it does not load; an unknown agent is a failure too)."""
    name, file = "config", paths.config_file
    try:
        config = load_config(paths)
    except ConfigError as exc:
        return fail(name, exc.message, _config_fix(exc.message, file)), None
    try:
        config.agent(agent_id)
    except ConfigError as exc:
        return fail(name, exc.message, f"claw agents add {agent_id}"), config
    loose = [p for p in loose_files(paths) if p.path == file]
    if loose:
        return warn(name, f"{file} is {loose[0].mode:04o}: other users can read it", FIX_COMMAND), config
    if not file.exists():
        return ok(name, f"no {file.name} yet: built-in defaults (`claw init` writes a commented one)"), config
    return ok(name, f"{file} loads and validates"), config


def _config_fix(message: str, file: Path) -> str:
    """Name the key when the message does (`<file>: <key>: <what is wrong>`)."""
    key = message.removeprefix(f"{file}: ").partition(": ")[0]
    if message.startswith(f"{file}: ") and _CONFIG_KEY.match(key):
        return f"`claw config set {key} VALUE` or `claw config unset {key}`, or edit {file}"
    return f"edit {file}, or change values with `claw config set KEY VALUE`"


def stale_temps(roots: list[Path], older_than: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Temp files that an interrupted atomic write left under `roots` (only those older than `older_than`)."""
    cutoff = time.time() - older_than
    found: list[Path] = []
    for root in dict.fromkeys(roots):
        for parent, dir_names, file_names in os.walk(root):
            dir_names[:] = [d for d in dir_names if d not in _SKIPPED_DIRS]
            for name in file_names:
                if temp_target(name) is None:
                    continue
                candidate = Path(parent) / name
                try:
                    if candidate.lstat().st_mtime < cutoff:
                        found.append(candidate)
                except FileNotFoundError:
                    continue
    return sorted(set(found))  # a workspace inside the data dir is walked twice


def temp_owner(temp: Path) -> Path:
    """The file whose atomic write left `temp` behind."""
    return temp.with_name(temp_target(temp.name) or temp.name)


def check_temps(roots: list[Path]) -> Finding:
    found = stale_temps(roots)
    if not found:
        return ok("temp files", "no leftovers of interrupted writes")
    what = "file" if len(found) == 1 else "files"
    detail = f"{len(found)} leftover temp {what} of interrupted writes: {listed([str(p) for p in found])}"
    return warn("temp files", detail, f"{FIX_COMMAND} (deletes them; the files they were for are untouched)")
