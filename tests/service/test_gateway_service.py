"""`claw gateway install|start|stop|restart|status|uninstall`: the unit systemd would load, and the whole life of
the service under a real user systemd.

A real user manager (`systemd --user`) needs a booted systemd; a container (CI here) has none, so the lifecycle
test starts one itself inside a bwrap mount namespace where `/run/systemd/system` exists, with its runtime dir
and HOME in the test's temp dir. systemctl then talks to it over its private socket, exactly as on a desktop.
"""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from claw.service.launchd import render_plist
from claw.service.spec import ServiceSpec, parse_env_file
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw

SYSTEMD = Path("/lib/systemd/systemd")


def _need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(why + " (CI must run this: see scripts/install-systemd.sh)")
        pytest.skip(why)


def _service_env(claw_env: ClawEnv, root: Path) -> dict[str, str]:
    """The test's claw env with its own HOME, config home and runtime dir: no real user's units are touched."""
    runtime = root / "run"
    runtime.mkdir(mode=0o700)
    home = root / "home"
    home.mkdir()
    env = {k: v for k, v in claw_env.env.items() if not k.startswith(("DBUS_", "XDG_"))}
    return env | {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_RUNTIME_DIR": str(runtime)}


def test_generated_unit_passes_systemd_analyze_verify(claw_env: ClawEnv, tmp_path: Path) -> None:
    _need(shutil.which("systemd-analyze") is not None, "systemd-analyze is not installed")
    # a state dir whose path needs quoting and escaping: a space, a % (a systemd specifier) and a $
    home = tmp_path / "state 50%h $HOME"
    home.mkdir()
    env = _service_env(claw_env, tmp_path) | {"CLAW_HOME": str(home)}
    done = run_claw(env, "gateway", "install", "--dry-run")
    assert done.returncode == 0, done.stderr
    first, _, unit = done.stdout.partition("\n")
    assert first == f"# {tmp_path}/home/.config/systemd/user/claw-gateway.service"
    assert "Restart=on-failure" in unit and "WantedBy=default.target" in unit
    assert not Path(first[2:]).exists(), "--dry-run wrote the unit"
    path = tmp_path / "claw-gateway.service"
    path.write_text(unit)
    verify = subprocess.run(["systemd-analyze", "--user", "verify", str(path)], capture_output=True, text=True,
                            env=env, timeout=60)  # fmt: skip
    assert verify.returncode == 0 and not verify.stderr.strip(), verify.stderr


def test_launchd_plist_runs_the_gateway_with_the_environment_file(tmp_path: Path) -> None:
    env_file = tmp_path / "gateway.env"
    env_file.write_text('# comment\nOPENAI_API_KEY="k \\"q\\" \\$x"\nCLAW_MODEL="m"\n')
    spec = ServiceSpec(("/py", "-m", "claw", "gateway", "run"), tmp_path, env_file, tmp_path / "logs/gateway.log",
                       tmp_path, 25)  # fmt: skip
    plist = plistlib.loads(render_plist(spec, parse_env_file(env_file.read_text())).encode())
    assert plist["ProgramArguments"] == ["/py", "-m", "claw", "gateway", "run"]
    assert plist["EnvironmentVariables"] == {
        "OPENAI_API_KEY": 'k "q" $x',
        "CLAW_MODEL": "m",
        "CLAW_HOME": str(tmp_path),
    }
    assert plist["KeepAlive"] == {"SuccessfulExit": False} and plist["RunAtLoad"] is True


def test_commands_without_an_installed_service_say_so(claw_env: ClawEnv, tmp_path: Path) -> None:
    env = _service_env(claw_env, tmp_path)
    for command in ("start", "stop", "restart", "uninstall"):
        done = run_claw(env, "gateway", command)
        assert done.returncode == 1 and "not installed" in done.stderr and "Traceback" not in done.stderr


@pytest.fixture
def user_systemd(claw_env: ClawEnv, tmp_path: Path) -> Iterator[dict[str, str]]:
    _need(SYSTEMD.exists() and shutil.which("systemctl") is not None, "systemd is not installed")
    _need(shutil.which("bwrap") is not None, "bwrap is not installed (it gives systemd --user its own /run)")
    env = _service_env(claw_env, tmp_path)
    log = (tmp_path / "systemd.log").open("w")
    manager = subprocess.Popen(
        ["bwrap", "--dev-bind", "/", "/", "--tmpfs", "/run", "--dir", "/run/systemd/system", "--die-with-parent",
         str(SYSTEMD), "--user"],
        env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    socket = Path(env["XDG_RUNTIME_DIR"]) / "systemd" / "private"
    deadline = time.monotonic() + 30
    while not socket.exists():
        if manager.poll() is not None or time.monotonic() > deadline:
            manager.kill()
            _need(False, f"systemd --user did not start here: {(tmp_path / 'systemd.log').read_text()[-300:]}")
        time.sleep(0.05)
    try:
        yield env
    finally:
        subprocess.run(["systemctl", "--user", "stop", "claw-gateway.service"], env=env, capture_output=True,
                       timeout=60)  # fmt: skip
        manager.terminate()
        try:
            manager.wait(30)
        except subprocess.TimeoutExpired:
            manager.kill()
            manager.wait(10)
        log.close()


def _running_pid(state: Path) -> int | None:
    try:
        return int(json.loads((state / "gateway.json").read_text())["pid"])
    except (OSError, ValueError, KeyError):
        return None


def _wait(predicate, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)
    return value


def test_install_start_agent_stop_uninstall_under_a_real_user_systemd(
    claw_env: ClawEnv, user_systemd: dict[str, str], tmp_path: Path
) -> None:
    state = tmp_path / "state 50%h $HOME"  # the unit must carry it through systemd's parser unchanged
    env = user_systemd | {"CLAW_HOME": str(state)}
    claw_env.server.script(text("Hello from the service."))
    assert run_claw(env, "init").returncode == 0
    assert run_claw(env, "config", "set", "gateway.port", "0").returncode == 0  # never the default port of a real one
    done = run_claw(env, "gateway", "install", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    env_file = state / "gateway.env"
    assert os.stat(env_file).st_mode & 0o777 == 0o600
    assert parse_env_file(env_file.read_text())["OPENAI_BASE_URL"] == claw_env.server.base_url
    runtime = _wait(lambda: (state / "gateway.json").exists())
    assert runtime

    status = run_claw(env, "gateway", "status", "--json")
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    service = report["service"]
    assert service["installed"] and service["enabled"] and service["running"]
    assert service["pid"] == report["pid"], "the running gateway is not the service's process"

    reply = run_claw(env, "agent", "-m", "hi through the service")
    assert reply.returncode == 0 and "Hello from the service." in reply.stdout, reply.stderr
    assert claw_env.server.last_request().messages[-1]["content"] == "hi through the service"

    # a gateway that dies is started again (after RestartSec), and status counts the restart
    os.kill(service["pid"], signal.SIGKILL)
    _wait(lambda: _running_pid(state) not in (None, service["pid"]), timeout=60)
    again = json.loads(run_claw(env, "gateway", "status", "--json").stdout)["service"]
    assert again["running"] and again["restarts"] == 1 and again["pid"] == _running_pid(state), again
    assert again["lastExit"].startswith("killed by signal KILL at ") and again["lastExit"].endswith("(signal)")

    pid = again["pid"]
    assert run_claw(env, "gateway", "stop", timeout=90).returncode == 0
    assert not (state / "gateway.json").exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    stopped = run_claw(env, "gateway", "status")
    assert stopped.returncode == 1 and "installed, enabled, not running" in stopped.stdout, stopped.stdout
    assert "  last exit: exited with status 0 at " in stopped.stdout, stopped.stdout

    done = run_claw(env, "gateway", "uninstall", timeout=90)
    assert done.returncode == 0, done.stderr
    assert not (Path(env["XDG_CONFIG_HOME"]) / "systemd/user/claw-gateway.service").exists()
    assert "Service" not in run_claw(env, "gateway", "status").stdout
