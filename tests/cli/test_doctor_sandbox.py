"""`claw doctor`'s sandbox check, from the real CLI: usable, missing, cannot create namespaces, turned off.

"Cannot create namespaces" is a real such place: doctor runs inside a bwrap sandbox whose user namespaces
are disabled and whose capabilities are dropped, where a second bwrap fails as it does in a locked-down
container.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claw.tools.sandbox_probe import find_bwrap
from tests.support.fixtures import ClawEnv
from tests.support.processes import REPO, run_claw
from tests.tools.sandbox_support import require_bwrap


@pytest.fixture
def home(claw_env: ClawEnv) -> Path:
    done = run_claw(claw_env.env, "init")
    assert done.returncode == 0, done.stderr
    return claw_env.home


def sandbox_check(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    if argv == DOCTOR:
        done = run_claw(env, *argv[3:], timeout=120)
    else:  # inside another jail: a process of its own
        done = subprocess.run(
            argv, env={**env, "PYTHONPATH": str(REPO)}, cwd=REPO, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stdout + done.stderr  # a warning is not a failure
    (check,) = [c for c in json.loads(done.stdout)["checks"] if c["name"] == "sandbox"]
    return check


DOCTOR = [sys.executable, "-m", "claw", "doctor", "--json"]


def test_usable(claw_env: ClawEnv, home: Path) -> None:
    require_bwrap()
    check = sandbox_check(DOCTOR, claw_env.env)
    assert check["status"] == "ok"
    assert check["detail"].startswith("bubblewrap ")
    assert check["detail"].endswith(": exec runs sandboxed in every session (no network)")


def test_missing_names_the_package(claw_env: ClawEnv, home: Path, tmp_path: Path) -> None:
    check = sandbox_check(DOCTOR, {**claw_env.env, "CLAW_BWRAP": str(tmp_path / "none")})
    assert check["status"] == "warn"
    assert "exec runs unsandboxed in the main session" in check["detail"]
    assert "channel, automation and subagent sessions refuse to exec" in check["detail"]
    assert "apt install bubblewrap" in check["fix"]
    assert "claw config set agents.defaults.sandbox.mode off" in check["fix"]


def test_no_namespaces_names_what_to_allow(claw_env: ClawEnv, home: Path) -> None:
    require_bwrap()
    bwrap = find_bwrap()
    assert bwrap is not None
    # The whole host read-only (claw and its Python included), the claw home writable, the host's network
    # (the scripted model server); no capabilities, and no user namespaces for the bwrap inside.
    jail = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", str(home), str(home)]
    jail += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--"]
    check = sandbox_check([*jail, *DOCTOR], claw_env.env)
    assert check["status"] == "warn"
    assert "cannot create a sandbox here: bwrap:" in check["detail"]
    assert "allow user namespaces" in check["fix"]


def test_turned_off(claw_env: ClawEnv, home: Path) -> None:
    (home / "config.toml").write_text('[agents.defaults.sandbox]\nmode = "off"\n', encoding="utf-8")
    os.chmod(home / "config.toml", 0o600)
    check = sandbox_check(DOCTOR, claw_env.env)
    assert check["status"] == "warn"
    assert check["detail"] == "off (agents.defaults.sandbox.mode): exec runs every command unsandboxed"
    assert check["fix"] == "claw config set agents.defaults.sandbox.mode all"
