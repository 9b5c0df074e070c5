"""The gateway as a systemd user unit: `~/.config/systemd/user/claw-gateway.service`, managed with
`systemctl --user`. No root, nothing outside the user's own unit folder.

The unit restarts the gateway when it fails (not when it was stopped), with a growing delay where the
systemd is new enough to have one (254: RestartSteps), and gives up after five failed starts in five
minutes rather than crash-looping; stderr goes to the journal and the gateway itself writes
`logs/gateway.log`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from claw.errors import ClawError
from claw.service.spec import ServiceSpec

UNIT = "claw-gateway.service"
_STATUS_PROPS = (
    "LoadState", "UnitFileState", "ActiveState", "SubState", "MainPID", "ActiveEnterTimestamp",
    "ExecMainStatus", "ExecMainCode", "ExecMainExitTimestamp", "NRestarts", "Result",
)  # fmt: skip


def unit_dir(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    config = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(config) / "systemd" / "user"


def render_unit(spec: ServiceSpec, systemd_version: int | None) -> str:
    """The unit file's text. `systemd_version` (None: unknown) decides whether the back-off keys exist."""
    backoff = ["RestartSteps=6", "RestartMaxDelaySec=5min"] if systemd_version and systemd_version >= 254 else []
    env = [f"Environment={_quote('CLAW_HOME=' + str(spec.claw_home))}"] if spec.claw_home else []
    lines = [
        "# Written by `claw gateway install`; `claw gateway uninstall` removes it.",
        "[Unit]",
        "Description=claw gateway (claw gateway run)",
        "After=network-online.target",
        "Wants=network-online.target",
        "StartLimitIntervalSec=300",
        "StartLimitBurst=5",
        "",
        "[Service]",
        "Type=simple",
        "ExecStart=" + " ".join(_quote(arg, command=True) for arg in spec.argv),
        f"WorkingDirectory={_path(spec.working_dir)}",
        *env,
        f"EnvironmentFile=-{_path(spec.env_file)}",
        # systemd forgets a stopped unit's exit once it unloads it, and a restart replaces it: keep the last one
        'ExecStopPost=/bin/sh -c \'echo "$$SERVICE_RESULT $$EXIT_CODE $$EXIT_STATUS $$(date +%%s)" > "$$1"\' sh '
        + _quote(str(exit_file(spec)), command=True),
        "Restart=on-failure",
        "RestartSec=5s",
        *backoff,
        "KillSignal=SIGTERM",
        f"TimeoutStopSec={spec.stop_timeout_s}s",
        "StandardOutput=journal",
        "StandardError=journal",
        "SyslogIdentifier=claw-gateway",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ]
    return "\n".join(lines)


def exit_file(spec: ServiceSpec) -> Path:
    """Where the unit writes how the gateway last ended: `<result> <exited|killed|dumped> <status> <epoch>`."""
    return spec.log_file.parent / "gateway.exit"


def last_exit(path: Path) -> str | None:
    """`exited with status 1 at …` / `killed by signal KILL at …` from the exit file, if there is one."""
    try:
        result, code, status, when = path.read_text(encoding="utf-8").split()[:4]
    except (OSError, ValueError):
        return None
    from datetime import datetime

    how = f"exited with status {status}" if code == "exited" else f"{code} by signal {status}"
    stamp = datetime.fromtimestamp(int(when)).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z") if when.isdigit() else when
    return f"{how} at {stamp}" + ("" if result == "success" else f" ({result})")


def _path(path: Path) -> str:
    """A path setting takes the path as it is (no quoting), with `%` escaped."""
    if "\n" in str(path):
        raise ClawError(f"cannot write a unit for a path with a line break: {str(path)!r}")
    return str(path).replace("%", "%%")


def _quote(value: str, *, command: bool = False) -> str:
    """One word for systemd's unit parser: `%` is its specifier everywhere, `$` its variable in a command line."""
    escaped = value.replace("%", "%%")
    if command:
        escaped = escaped.replace("$", "$$")
    if re.fullmatch(r"[\w@%+=:,./-]+", escaped):
        return escaped
    return '"' + escaped.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True, slots=True)
class UnitStatus:
    installed: bool
    enabled: bool
    running: bool
    state: str
    pid: int | None
    since: str | None
    last_exit: str | None
    restarts: int

    def to_wire(self) -> dict[str, object]:
        return {"manager": "systemd", "unit": UNIT, "installed": self.installed, "enabled": self.enabled,
                "running": self.running, "state": self.state, "pid": self.pid, "since": self.since,
                "lastExit": self.last_exit, "restarts": self.restarts}  # fmt: skip


class SystemdUser:
    """`systemctl --user` on the unit; every failure is one line naming what systemd said."""

    name = "systemd"

    def __init__(self, environ: dict[str, str] | None = None, exit_path: Path | None = None) -> None:
        self.environ = dict(os.environ if environ is None else environ)
        self.unit_file = unit_dir(self.environ) / UNIT
        self.exit_path = exit_path
        """The exit file the unit writes (`exit_file`); without it, systemd's own record, while it keeps one."""

    def version(self) -> int | None:
        if shutil.which("systemctl", path=self.environ.get("PATH")) is None:
            return None
        done = subprocess.run(["systemctl", "--version"], capture_output=True, text=True, env=self.environ, check=False)
        match = re.match(r"systemd (\d+)", done.stdout)
        return int(match.group(1)) if match else None

    def render(self, spec: ServiceSpec) -> str:
        return render_unit(spec, self.version())

    def install(self, spec: ServiceSpec) -> None:
        text = self.render(spec)
        self.unit_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.unit_file.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.unit_file)
        self._ctl("daemon-reload")
        self._ctl("enable", UNIT)

    def start(self) -> None:
        self._ctl("start", UNIT)

    def stop(self) -> None:
        self._ctl("stop", UNIT)

    def restart(self) -> None:
        self._ctl("restart", UNIT)

    def uninstall(self) -> None:
        self._ctl("disable", "--now", UNIT)
        self.unit_file.unlink(missing_ok=True)
        self._ctl("daemon-reload")
        self._ctl("reset-failed", UNIT, check=False)

    def status(self) -> dict[str, object]:
        out = self._ctl("show", UNIT, *(f"--property={p}" for p in _STATUS_PROPS))
        props = dict(line.partition("=")[::2] for line in out.splitlines() if "=" in line)
        running = props.get("ActiveState") == "active"
        pid = int(props.get("MainPID") or 0) or None
        exited = props.get("ExecMainExitTimestamp") or ""
        ended = last_exit(self.exit_path) if self.exit_path is not None else None
        if ended is None and exited:
            how = "killed by signal" if props.get("ExecMainCode") in ("2", "3") else "exited with status"
            ended = f"{how} {props.get('ExecMainStatus', '?')} at {exited}"
        return UnitStatus(
            installed=self.unit_file.exists() and props.get("LoadState") == "loaded",
            enabled=props.get("UnitFileState") == "enabled",
            running=running,
            state=f"{props.get('ActiveState', '?')} ({props.get('SubState', '?')})",
            pid=pid if running else None,
            since=(props.get("ActiveEnterTimestamp") or None) if running else None,
            last_exit=ended,
            restarts=int(props.get("NRestarts") or 0),
        ).to_wire()

    def lingering(self) -> bool | None:
        """Whether the user's services outlive their sessions (None: logind cannot say)."""
        user = self.environ.get("USER") or self.environ.get("LOGNAME")
        if not user or shutil.which("loginctl", path=self.environ.get("PATH")) is None:
            return None
        done = subprocess.run(["loginctl", "show-user", user, "--property=Linger"], capture_output=True, text=True,
                              env=self.environ, check=False)  # fmt: skip
        return None if done.returncode else done.stdout.strip() == "Linger=yes"

    def _ctl(self, *args: str, check: bool = True) -> str:
        if shutil.which("systemctl", path=self.environ.get("PATH")) is None:
            raise ClawError(
                "systemctl not found: `claw gateway install` needs systemd (run `claw gateway run` instead)"
            )
        done = subprocess.run(["systemctl", "--user", *args], capture_output=True, text=True, env=self.environ,
                              check=False, timeout=120)  # fmt: skip
        if check and done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}").splitlines()[-1]
            hint = " (no user systemd here: log in to a session that has one, or run `claw gateway run`)"
            raise ClawError(f"systemctl --user {' '.join(args)}: {said}" + (hint if "bus" in said else ""))
        return done.stdout
