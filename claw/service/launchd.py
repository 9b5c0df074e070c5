"""The gateway as a launchd agent on macOS: `~/Library/LaunchAgents/ai.claw.gateway.plist`, managed with
`launchctl` in the user's `gui/<uid>` domain. No root.

launchd has no environment file: the variables of `gateway.env` are written into the plist, which is
therefore 0600. `KeepAlive` restarts the gateway only after a failed exit, at most every 10 seconds
(`ThrottleInterval`); stdout and stderr go next to `logs/gateway.log`.
"""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
from pathlib import Path

from claw.errors import ClawError
from claw.service.spec import ServiceSpec, parse_env_file

LABEL = "ai.claw.gateway"


def plist_path(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("HOME") or Path.home()) / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def render_plist(spec: ServiceSpec, env: dict[str, str]) -> str:
    variables = dict(env)
    if spec.claw_home:
        variables["CLAW_HOME"] = str(spec.claw_home)
    logs = spec.log_file.parent
    document = {
        "Label": LABEL,
        "ProgramArguments": list(spec.argv),
        "WorkingDirectory": str(spec.working_dir),
        "EnvironmentVariables": variables,
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": 10,
        "ExitTimeOut": spec.stop_timeout_s,
        "StandardOutPath": str(logs / "gateway.stdout.log"),
        "StandardErrorPath": str(logs / "gateway.stderr.log"),
    }
    return plistlib.dumps(document).decode("utf-8")


class LaunchdAgent:
    name = "launchd"

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        self.environ = dict(os.environ if environ is None else environ)
        self.unit_file = plist_path(self.environ)
        self.domain = f"gui/{os.getuid()}"

    def render(self, spec: ServiceSpec) -> str:
        env = parse_env_file(spec.env_file.read_text(encoding="utf-8")) if spec.env_file.exists() else {}
        return render_plist(spec, env)

    def install(self, spec: ServiceSpec) -> None:
        self.unit_file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.unit_file.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(self.render(spec))
        os.replace(self.unit_file.with_suffix(".tmp"), self.unit_file)
        spec.log_file.parent.mkdir(parents=True, exist_ok=True)
        self._ctl("enable", f"{self.domain}/{LABEL}")

    def start(self) -> None:
        if self._ctl("print", f"{self.domain}/{LABEL}", check=False) is None:
            self._ctl("bootstrap", self.domain, str(self.unit_file))
        else:
            self._ctl("kickstart", f"{self.domain}/{LABEL}")

    def stop(self) -> None:
        self._ctl("bootout", f"{self.domain}/{LABEL}", check=False)

    def restart(self) -> None:
        self.stop()
        self.start()

    def uninstall(self) -> None:
        self.stop()
        self._ctl("disable", f"{self.domain}/{LABEL}", check=False)
        self.unit_file.unlink(missing_ok=True)

    def status(self) -> dict[str, object]:
        printed = self._ctl("print", f"{self.domain}/{LABEL}", check=False) or ""
        fields = dict((k.strip(), v.strip()) for k, _, v in (line.partition("=") for line in printed.splitlines()) if v)
        pid, runs = fields.get("pid", ""), fields.get("runs", "")
        return {"manager": "launchd", "unit": LABEL, "installed": self.unit_file.exists(), "enabled": bool(printed),
                "running": fields.get("state") == "running", "state": fields.get("state", "not loaded"),
                "pid": int(pid) if pid.isdigit() else None, "since": None, "lastExit": fields.get("last exit code"),
                "restarts": max(0, int(runs) - 1) if runs.isdigit() else 0}  # fmt: skip

    def lingering(self) -> bool | None:
        return True  # a LaunchAgent runs while the user is logged in; a server wants a LaunchDaemon (root)

    def _ctl(self, *args: str, check: bool = True) -> str | None:
        if shutil.which("launchctl", path=self.environ.get("PATH")) is None:
            raise ClawError("launchctl not found: `claw gateway install` needs launchd or systemd")
        done = subprocess.run(["launchctl", *args], capture_output=True, text=True, env=self.environ,
                              check=False, timeout=60)  # fmt: skip
        if done.returncode != 0:
            if check:
                said = (done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}").splitlines()[-1]
                raise ClawError(f"launchctl {' '.join(args)}: {said}")
            return None
        return done.stdout
