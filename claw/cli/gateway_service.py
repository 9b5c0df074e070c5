"""`claw gateway install|start|stop|restart|uninstall` and the service part of `status`: the gateway kept
running by the user's service manager (see `claw.service`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from claw.service.supervisor import Supervisor


def _supervisor() -> Supervisor:
    from claw.paths import Paths
    from claw.service.supervisor import supervisor

    return supervisor(logs_dir=Paths.from_env().logs_dir)


def install(
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the unit (or plist) and change nothing."),
    start: bool = typer.Option(True, "--start/--no-start", help="Start it now (default) or only enable it."),
) -> None:
    """Install the gateway as a user service (systemd on Linux, launchd on macOS), enabled at login.

    It runs `claw gateway run` with this state dir and the environment file `gateway.env` (written from
    this shell's CLAW_* and OPENAI_* variables when there is none), restarts it when it fails, and logs to
    the journal and logs/gateway.log. No root needed."""
    import os

    from claw.cli.common import load
    from claw.paths import ensure_private_dir
    from claw.server.runtime_file import read_runtime
    from claw.service.spec import ServiceSpec, write_env_file

    paths, config = load()
    spec = ServiceSpec.current(paths, config.gateway.shutdown_grace_seconds)
    sup = _supervisor()
    if dry_run:
        typer.echo(f"# {sup.unit_file}")
        typer.echo(sup.render(spec), nl=False)
        return
    running = read_runtime(paths)
    if running is not None:
        typer.echo(f"note: a gateway already runs on this state (pid {running.pid}); the service starts once it stops")
    for folder in (spec.working_dir, spec.log_file.parent):  # systemd will not start a unit whose folder is missing
        ensure_private_dir(folder)
    if write_env_file(spec.env_file, os.environ):
        typer.echo(f"Wrote {spec.env_file} (0600) from this shell's CLAW_* and OPENAI_* variables.")
    sup.install(spec)
    typer.echo(f"Installed {sup.unit_file} ({sup.name}), enabled.")
    if start:
        sup.start()
        typer.echo("Started. See `claw gateway status`; logs in " + str(spec.log_file))
    if sup.lingering() is not True:
        typer.echo("To keep it running after you log out (a server): loginctl enable-linger $USER")


def start() -> None:
    """Start the installed gateway service."""
    sup = _require_installed()
    sup.start()
    typer.echo("Started.")


def stop() -> None:
    """Stop the gateway service (it starts again at the next login unless uninstalled)."""
    sup = _require_installed()
    sup.stop()
    typer.echo("Stopped.")


def restart() -> None:
    """Restart the gateway service (after editing config.toml or gateway.env)."""
    sup = _require_installed()
    sup.restart()
    typer.echo("Restarted.")


def uninstall() -> None:
    """Stop the gateway service and remove its unit; the state and gateway.env stay."""
    sup = _require_installed()
    sup.uninstall()
    typer.echo(f"Removed {sup.unit_file}.")


def _require_installed() -> Supervisor:
    from claw.errors import ClawError

    sup = _supervisor()
    if not sup.unit_file.exists():
        raise ClawError(f"the gateway service is not installed ({sup.unit_file}): run `claw gateway install`")
    return sup


def service_status() -> dict[str, Any] | None:
    """The service's state for `claw gateway status`, or None when none is installed here."""
    try:
        sup = _supervisor()
    except Exception:
        return None
    if not sup.unit_file.exists():
        return None
    from claw.errors import ClawError

    try:
        return sup.status()
    except ClawError as exc:
        return {"manager": sup.name, "installed": True, "error": exc.message}


def print_service(state: dict[str, Any]) -> None:
    if "error" in state:
        typer.echo(f"Service ({state['manager']}): installed, but its state is unknown: {state['error']}")
        return
    running = f"running, pid {state['pid']}" + (f" since {state['since']}" if state.get("since") else "")
    typer.echo(
        f"Service ({state['manager']} {state['unit']}): installed, {'enabled' if state['enabled'] else 'disabled'}, "
        + (running if state["running"] else f"not running ({state['state']})")
    )
    if state.get("lastExit"):
        typer.echo(
            f"  last exit: {state['lastExit']}" + (f" · restarts: {state['restarts']}" if state["restarts"] else "")
        )
