"""Whether bubblewrap can sandbox `exec` on this machine: found by running it, once per process.

`which bwrap` is not enough: bwrap may be installed where the kernel or the container forbids new
namespaces (user namespaces off, a seccomp profile, an AppArmor rule), and then every sandboxed command
would fail. So the probe runs a real sandbox — the same options exec uses, with the network cut — around
`/bin/true`, and remembers the answer for the life of the process.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Literal

from claw.tools.sandbox import SandboxSpec, bwrap_argv

PROBE_TIMEOUT_SECONDS = 10.0
BWRAP_ENV = "CLAW_BWRAP"
"""Names the bwrap binary to use (for one outside PATH); a path that is not executable means none."""
FALLBACK_LOCATIONS = ("/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap")

Status = Literal["usable", "missing", "no-namespaces"]

INSTALL_FIX = "install bubblewrap (Debian/Ubuntu: `apt install bubblewrap`; Fedora: `dnf install bubblewrap`)"
NAMESPACES_FIX = (
    "allow user namespaces (sysctl user.max_user_namespaces > 0; Debian: kernel.unprivileged_userns_clone=1; "
    "in a container: a seccomp/AppArmor profile that permits them)"
)


@dataclass(frozen=True, slots=True)
class SandboxProbe:
    """What the probe found: `usable`, `missing` (no bwrap), or `no-namespaces` (bwrap ran and failed)."""

    status: Status
    bwrap: str | None
    detail: str
    """One line: the version when usable, else what went wrong (bwrap's own message when it ran)."""

    @property
    def usable(self) -> bool:
        return self.status == "usable"

    @property
    def fix(self) -> str:
        """What makes it usable (empty when it is)."""
        return {"usable": "", "missing": INSTALL_FIX, "no-namespaces": NAMESPACES_FIX}[self.status]


def probe_sandbox() -> SandboxProbe:
    """Run bwrap once (cached for the process, per bwrap found) and say whether exec can use it."""
    return _probe(find_bwrap())


@functools.cache
def _probe(bwrap: str | None) -> SandboxProbe:
    if bwrap is None:
        return SandboxProbe("missing", None, "bwrap (bubblewrap) is not installed")
    if not os.access(bwrap, os.X_OK):
        return SandboxProbe("missing", None, f"{BWRAP_ENV}={bwrap} is not an executable file")
    argv = bwrap_argv(bwrap, SandboxSpec(workspace=None), ["/bin/true"])
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_SECONDS, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxProbe("no-namespaces", bwrap, f"{bwrap} did not run: {exc}")
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return SandboxProbe("no-namespaces", bwrap, f"{bwrap} cannot create a sandbox here: {said}")
    return SandboxProbe("usable", bwrap, _version(bwrap))


def find_bwrap() -> str | None:
    """`$CLAW_BWRAP` if set, else bwrap on the gateway's PATH, else where distributions put it."""
    chosen = os.environ.get(BWRAP_ENV)
    if chosen is not None:
        return chosen
    found = shutil.which("bwrap")
    if found:
        return found
    return next((path for path in FALLBACK_LOCATIONS if os.access(path, os.X_OK)), None)


def _version(bwrap: str) -> str:
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return bwrap
    return f"{done.stdout.strip() or 'bwrap'} at {bwrap}"
