"""What a stdio server's command needs to see in its sandbox, derived from the command itself.

A server is a program the user installed, run the way its README says: `npx -y @scope/server DIR`,
`uvx mcp-server-time`, `~/venvs/mcp/bin/mcp-server-git`, `python3 /tmp/my_server.py`. Inside the sandbox it
needs, besides the system:

- the executable and its install prefix, as named and after symlinks (`…/venv/bin/python` gives the venv
  and the Python it was made from — often pyenv's, under the home the sandbox hides);
- for a script (`#!…` first line), the same for its interpreter, `#!/usr/bin/env node` included, and for
  a virtualenv the `home` of its `pyvenv.cfg`;
- a node package's whole `node_modules` tree (not only its own `dist/`: its dependencies sit beside it);
- `npx`/`npm` and `uvx`/`uv`: their download caches read-write, so the second start reuses the first's
  download (and a package that writes beside itself, like server-memory's `memory.jsonl`, can); for `uv`, also
  the Python it runs the tool with (`UV_PYTHON`, else the first `python3`/`python` on the PATH), whose prefix
  the tool environment it keeps in its cache links to;
- the folders of file arguments read-only, and directory arguments read-write (the roots it is handed).

Never the home itself or claw's state: a prefix that would contain one of those is narrowed to the folder
the file is in, and left out if even that contains one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from claw.tools.sandbox import SYSTEM_PATHS

CACHE_VARIABLES = (
    "npm_config_cache",
    "NPM_CONFIG_CACHE",
    "npm_config_offline",
    "npm_config_prefer_offline",
    "UV_CACHE_DIR",
    "UV_OFFLINE",
    "UV_PYTHON",
    "UV_PYTHON_DOWNLOADS",
    "UV_PYTHON_INSTALL_DIR",
    "UV_TOOL_DIR",
)
"""Where the user keeps npm's and uv's caches, which Python uv uses, and whether they may go online: passed from
claw's environment to a stdio server, so `npx`/`uvx` inside use the caches the sandbox shows. None is a secret."""

_NPM = ("npx", "npm", "npx-cli.js", "npm-cli.js")
_UV = ("uvx", "uv")


@dataclass(slots=True)
class Needs:
    """Host paths a command needs: read-only and read-write (each deduplicated, in the order found)."""

    read_only: list[Path] = field(default_factory=list)
    writable: list[Path] = field(default_factory=list)


def derive(command: str, args: Sequence[str], env: Mapping[str, str], *, cwd: Path, hidden: Sequence[Path]) -> Needs:
    """The paths `command` (resolved, absolute) with `args` needs, for a server whose environment is `env`."""
    needs = Needs()
    guard = _Guard(hidden)
    _executable(Path(command), needs, guard, depth=0, env=env)
    names = {Path(command).name, Path(os.path.realpath(command)).name}
    if names & set(_NPM):
        _cache(_npm_cache(env), needs, guard)
    if names & set(_UV):
        for folder in _uv_folders(env):
            _cache(folder, needs, guard)
        python = _uv_python(env)
        if python is not None:
            _executable(python, needs, guard, depth=1, env=env)
    for arg in args:
        path = Path(arg).expanduser()
        path = path if path.is_absolute() else cwd / path
        if "/" not in arg or _system(path):  # not a path; or `/`, /usr …: they stay read-only
            continue
        if path.is_dir():
            guard.add(needs.writable, path)
        elif path.is_file():
            guard.add(needs.read_only, path.parent)
            _node_modules(path, needs, guard)
    needs.read_only = list(dict.fromkeys(needs.read_only))
    needs.writable = list(dict.fromkeys(needs.writable))
    return needs


def server_environment(env: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """The variables given to a stdio server on top of the SDK's default ones: the cache locations from
    claw's environment (`CACHE_VARIABLES`), then the server's own `env`, which wins."""
    return {**{k: environ[k] for k in CACHE_VARIABLES if k in environ}, **env}


class _Guard:
    """Keeps the home and claw's state out of what a sandbox is shown."""

    def __init__(self, hidden: Sequence[Path]) -> None:
        self.hidden = [os.path.realpath(h) for h in hidden]

    def covers_hidden(self, path: Path) -> bool:
        text = os.path.realpath(path)
        return any(h == text or h.startswith(text.rstrip("/") + "/") for h in self.hidden)

    def add(self, into: list[Path], path: Path, *, narrower: Path | None = None) -> None:
        for candidate in (path, narrower):
            if candidate is not None and not _system(candidate) and not self.covers_hidden(candidate):
                into.append(candidate)
                return


def _executable(path: Path, needs: Needs, guard: _Guard, *, depth: int, env: Mapping[str, str]) -> None:
    """The file's prefixes (as named, after symlinks), and the same for its interpreter, to a few levels."""
    for named in dict.fromkeys((Path(os.path.abspath(path)), Path(os.path.realpath(path)))):
        folder = named.parent
        prefix = folder.parent if folder.name in ("bin", "sbin", "Scripts") else folder
        guard.add(needs.read_only, prefix, narrower=folder)
        _node_modules(named, needs, guard)
        cfg = prefix / "pyvenv.cfg"  # a venv's Python may be a copy, not a link: its `home` says where it came from
        if folder.name == "bin" and cfg.is_file():
            home = _venv_home(cfg)
            if home is not None and depth < 4:
                _executable(home / "python", needs, guard, depth=depth + 1, env=env)
    interpreter = _shebang(path, env)
    if interpreter is not None and depth < 4:
        _executable(interpreter, needs, guard, depth=depth + 1, env=env)


def _shebang(path: Path, env: Mapping[str, str]) -> Path | None:
    """The interpreter a script's `#!` line names (`#!/usr/bin/env node` looked up on the PATH)."""
    try:
        with path.open("rb") as file:
            first = file.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        found = shutil.which(rest[0], path=env.get("PATH") or os.environ.get("PATH"))
        return Path(found) if found else None
    return Path(words[0]) if Path(words[0]).is_absolute() else None


def _venv_home(cfg: Path) -> Path | None:
    try:
        for line in cfg.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                return Path(value.strip())
    except OSError:
        pass
    return None


def _node_modules(path: Path, needs: Needs, guard: _Guard) -> None:
    """A file inside a `node_modules` tree: the outermost tree, where its dependencies are."""
    parts = Path(os.path.realpath(path)).parts
    if "node_modules" in parts:
        top = Path(*parts[: parts.index("node_modules") + 1])
        guard.add(needs.read_only, top)


def _cache(folder: Path, needs: Needs, guard: _Guard) -> None:
    """A download cache, created if missing (a bind of a missing path shows nothing) and shown writable."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return
    guard.add(needs.writable, folder)


def _npm_cache(env: Mapping[str, str]) -> Path:
    value = env.get("npm_config_cache") or env.get("NPM_CONFIG_CACHE")
    return Path(value).expanduser() if value else _home(env) / ".npm"


def _uv_folders(env: Mapping[str, str]) -> list[Path]:
    """uv's cache, and where it keeps the tools and the Pythons it installs (its defaults per XDG)."""
    home = _home(env)
    cache = Path(env.get("XDG_CACHE_HOME") or home / ".cache")
    data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    return [
        Path(env.get("UV_CACHE_DIR") or cache / "uv").expanduser(),
        Path(env.get("UV_TOOL_DIR") or data / "uv" / "tools").expanduser(),
        Path(env.get("UV_PYTHON_INSTALL_DIR") or data / "uv" / "python").expanduser(),
    ]


def _uv_python(env: Mapping[str, str]) -> Path | None:
    """The interpreter uv picks when it has none of its own: `UV_PYTHON` when it names a file, else the PATH's."""
    named = env.get("UV_PYTHON")
    if named and "/" in named:
        return Path(named).expanduser()
    search = env.get("PATH") or os.environ.get("PATH")
    found = shutil.which("python3", path=search) or shutil.which("python", path=search)
    return Path(found) if found else None


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def _system(path: Path) -> bool:
    """`/` itself, or within the system paths every sandbox shows read-only."""
    text = os.path.abspath(path)
    return text == "/" or any(text == s or text.startswith(s + "/") for s in SYSTEM_PATHS)
