"""Every location claw reads or writes, in one place.

`CLAW_HOME` puts everything below one directory (tests set it to a temp dir);
otherwise the config file lives in platformdirs' user config dir and the rest in
its user data dir.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from claw.errors import UsageError

_AGENT_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_PACKAGE_ROOT = Path(__file__).resolve().parent


def check_agent_id(agent_id: str) -> str:
    """Return `agent_id` if it is a valid agent id, else raise a usage error."""
    if not _AGENT_ID.match(agent_id):
        raise UsageError(
            f"invalid agent id {agent_id!r}: use 1-64 of a-z, 0-9, '_' or '-', starting with a letter or digit"
        )
    return agent_id


def bundled_dir(name: str) -> Path:
    """A directory shipped with claw (`workspace-template`, `skills`) at the top of the source tree."""
    return _PACKAGE_ROOT.parent / name


@dataclass(frozen=True, slots=True)
class Paths:
    """The on-disk layout of DESIGN.md, rooted at `config_dir` and `data_dir`."""

    config_dir: Path
    data_dir: Path

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Paths:
        env = os.environ if environ is None else environ
        home = env.get("CLAW_HOME")
        if home:
            root = Path(home).expanduser().resolve()
            return cls(config_dir=root, data_dir=root)
        import platformdirs

        return cls(
            config_dir=Path(platformdirs.user_config_dir("claw")),
            data_dir=Path(platformdirs.user_data_dir("claw")),
        )

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def token_file(self) -> Path:
        return self.data_dir / "gateway.token"

    @property
    def gateway_db(self) -> Path:
        return self.data_dir / "gateway.db"

    @property
    def skills_dir(self) -> Path:
        return self.data_dir / "skills"

    @property
    def hooks_dir(self) -> Path:
        """Managed hooks: one folder per hook (HOOK.md + handler.py), shared by every agent."""
        return self.data_dir / "hooks"

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "logs"

    @property
    def gateway_runtime_file(self) -> Path:
        """`gateway.json`: pid, port and URL of the running `claw gateway run` (removed when it stops)."""
        return self.data_dir / "gateway.json"

    @property
    def gateway_lock_file(self) -> Path:
        """Held (flock) by the running gateway, so a second one on the same state refuses to start."""
        return self.data_dir / "gateway.lock"

    @property
    def exec_approvals_file(self) -> Path:
        return self.data_dir / "exec-approvals.json"

    @property
    def exec_runs_dir(self) -> Path:
        """One record per running `exec` command, so that the next gateway can end what a crash left."""
        return self.data_dir / "exec-runs"

    def default_workspace(self, agent_id: str = "main") -> Path:
        """Where an agent's workspace lives unless config puts it elsewhere."""
        name = "workspace" if agent_id == "main" else f"workspace-{agent_id}"
        return self.data_dir / name

    def agent_dir(self, agent_id: str) -> Path:
        return self.data_dir / "agents" / agent_id

    def sessions_dir(self, agent_id: str) -> Path:
        return self.agent_dir(agent_id) / "sessions"

    def memory_index(self, agent_id: str) -> Path:
        return self.data_dir / "memory" / f"{agent_id}.sqlite"


PRIVATE_UMASK = 0o077
_user_umask: int | None = None


def use_private_umask() -> None:
    """Make everything this process creates private to its user (folders 0700, files 0600), once, at start.

    Called by the `claw` entry point: the state dir's logs, databases with their WAL and SHM files, MCP
    logs and transcripts then never depend on the umask claw was started with (under 022 they came out
    0755/0644, and `claw doctor` flagged claw's own files). What the user's commands create (`exec`) is
    theirs: they run with the umask claw found (`user_umask`)."""
    global _user_umask
    previous = os.umask(PRIVATE_UMASK)
    if _user_umask is None:
        _user_umask = previous


def user_umask() -> int:
    """The umask claw was started with (this process's own when `use_private_umask` was not called)."""
    if _user_umask is not None:
        return _user_umask
    current = os.umask(PRIVATE_UMASK)
    os.umask(current)
    return current


def ensure_private_dir(path: Path) -> Path:
    """Create `path` and any missing parents with mode 0700; tighten `path` itself if it already exists.

    (`mkdir(parents=True, mode=…)` gives missing parents the default mode, hence one level at a time.)
    """
    missing = []
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    for directory in reversed(missing):
        directory.mkdir(mode=0o700, exist_ok=True)
        directory.chmod(0o700)  # mkdir's mode is masked by the umask
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path
