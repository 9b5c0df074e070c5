"""An agent's workspace on disk: where it is, seeding it from the template, and sizing its files.

The bootstrap files (SOUL.md, AGENTS.md, …) are injected into every prompt with a per-file
cap; `file_report` tells the user, before a run, whether a file will be cut.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from claw.config import Config
from claw.errors import UsageError
from claw.paths import Paths, ensure_private_dir
from claw.safe_read import RefusedFile, read_agent_text

BOOTSTRAP_NAMES: dict[str, str] = {
    "soul": "SOUL.md",
    "agents": "AGENTS.md",
    "tools": "TOOLS.md",
    "identity": "IDENTITY.md",
    "user": "USER.md",
    "memory": "MEMORY.md",
}
"""Short names accepted on the command line, mapped to the workspace file they stand for."""

NOT_INJECTED = frozenset({"MEMORY.md"})
"""Files reached through memory recall rather than injected whole, so no per-file cap applies."""

HEAD_RATIO, TAIL_RATIO = 0.7, 0.2


def workspace_dir(paths: Paths, config: Config, agent_id: str = "main") -> Path:
    """The agent's workspace: its configured `workspace`, else the default location.

    `agents.defaults.workspace` names the main agent's workspace only; another agent uses
    its own `agents.list.<id>.workspace` or `workspace-<id>`, so two agents never share
    a workspace by accident (OpenClaw behaves the same way). A relative path is taken
    relative to the directory holding config.toml.
    """
    settings = config.agent(agent_id)
    own = config.file.agents.list.get(agent_id, {})
    if settings.workspace is not None and (agent_id == "main" or "workspace" in own):
        path = Path(os.path.expandvars(str(settings.workspace))).expanduser()
        return path if path.is_absolute() else (paths.config_dir / path).resolve()
    return paths.default_workspace(agent_id)


def resolve_name(name: str) -> str:
    """Map a short name (`soul`, any case) or an exact file name (`SOUL.md`) to the file name."""
    short = BOOTSTRAP_NAMES.get(name.lower())
    if short:
        return short
    if name in BOOTSTRAP_NAMES.values():
        return name
    valid = ", ".join(f"{key} ({file})" for key, file in BOOTSTRAP_NAMES.items())
    raise UsageError(f"unknown workspace file {name!r}: use one of {valid}")


def seed_workspace(template: Path, workspace: Path) -> list[Path]:
    """Copy `template` into `workspace`, never overwriting; return the directories and files created."""
    created: list[Path] = []
    for src_dir, dir_names, file_names in os.walk(template):
        dir_names[:] = sorted(d for d in dir_names if d != "__pycache__")
        rel = Path(src_dir).relative_to(template)
        target_dir = workspace / rel
        if not target_dir.exists():
            created.append(target_dir)
        ensure_private_dir(target_dir)
        for name in sorted(file_names):
            if _copy_new(Path(src_dir) / name, target_dir / name):
                created.append(target_dir / name)
    return created


def create_from_template(template: Path, path: Path) -> bool:
    """Create `path` from the same-named template file (or empty); False if it already existed."""
    ensure_private_dir(path.parent)
    source = template / path.name
    if source.is_file():
        return _copy_new(source, path)
    return _copy_new(None, path)


def _copy_new(source: Path | None, target: Path) -> bool:
    # O_EXCL makes "never overwrite" hold even if the file appears between a check and the write.
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as out:
        if source is not None:
            with source.open("rb") as src:
                shutil.copyfileobj(src, out)
    return True


@dataclass(frozen=True, slots=True)
class FileSize:
    """How big a workspace file is, and whether injecting it would cut it (or why it is not read at all)."""

    name: str
    exists: bool
    chars: int
    cap: int | None
    refused: str | None = None
    """Why claw will not read it (`claw.safe_read`): a link out, a FIFO, too big …; None when it is read."""

    @property
    def truncated(self) -> bool:
        return self.cap is not None and self.chars > self.cap


def measure(path: Path, cap: int | None, *, allow_hardlinks: bool = False) -> FileSize:
    """Size `path` in characters (trailing whitespace ignored, as the injector trims it), read as the
    injector reads it: a file `claw.safe_read` refuses counts as present, empty and refused."""
    cap = None if path.name in NOT_INJECTED else cap
    try:
        text = read_agent_text(path.parent, path.name, allow_hardlinks=allow_hardlinks)
    except RefusedFile as refused:
        return FileSize(path.name, True, 0, cap, refused.message)
    if text is None:
        return FileSize(path.name, False, 0, cap)
    return FileSize(path.name, True, len(text.rstrip()), cap)


def file_report(path: Path, cap: int | None) -> str:
    """One line like `SOUL.md: 1,234 chars of 20,000 cap`, warning when the file will be truncated or skipped."""
    size = measure(path, cap)
    if not size.exists:
        return f"{size.name}: missing"
    if size.refused is not None:
        return f"{size.name}: skipped, never read into a prompt: {size.refused}"
    if size.cap is None:
        return f"{size.name}: {size.chars:,} chars (searched with memory_search, not injected whole)"
    line = f"{size.name}: {size.chars:,} chars of {size.cap:,} cap"
    if size.truncated:
        line += (
            f"; warning: will be TRUNCATED to {size.cap:,} "
            f"({HEAD_RATIO:.0%} head / {TAIL_RATIO:.0%} tail) when injected"
        )
    return line


def count_daily_notes(workspace: Path) -> int:
    """Markdown notes in memory/ (the README that explains the folder does not count)."""
    folder = workspace / "memory"
    if not folder.is_dir():
        return 0
    return sum(1 for p in folder.glob("*.md") if p.is_file() and p.name.lower() != "readme.md")


def count_skills(workspace: Path) -> int:
    """Skill folders (holding a SKILL.md) in skills/."""
    folder = workspace / "skills"
    if not folder.is_dir():
        return 0
    return sum(1 for p in folder.iterdir() if (p / "SKILL.md").is_file())
