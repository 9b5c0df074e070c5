"""`claw gateway run|status|token|install|start|stop|restart|uninstall`: the long-lived gateway, how to reach
it, and keeping it running as a user service."""

from __future__ import annotations

import typer

from claw.cli import gateway_service
from claw.cli.common import JsonOption

app = typer.Typer(
    help="Run the gateway as a server or a user service; see whether one is running; print its token.",
    no_args_is_help=True,
)


@app.command("run")
def run(
    port: int | None = typer.Option(None, "--port", "-p", help="Port (default: gateway.port, 18789; 0 picks one)."),
    bind: str | None = typer.Option(None, "--bind", help="Address to listen on (default: gateway.bind, 127.0.0.1)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging."),
) -> None:
    """Run the gateway in the foreground: WebSocket and HTTP on one port, logs to stderr and a file.

    Ctrl-C or SIGTERM stops it cleanly: running turns get `gateway.shutdownGraceSeconds` to finish."""
    import asyncio

    from claw.cli.common import load
    from claw.compose import build_gateway
    from claw.server.log_setup import known_secrets, setup_logging
    from claw.server.serve import GatewayProcess
    from claw.settings.channels import channel_secrets

    if port is not None and not 0 <= port <= 65535:
        raise typer.BadParameter("the port must be between 0 and 65535", param_hint="--port")
    paths, config = load()
    process = GatewayProcess(paths, config, bind=bind, port=port)
    secrets = [*known_secrets(process.settings.token, dict(config.providers)), *channel_secrets(config.channels)]
    setup_logging(paths.logs_dir / "gateway.log", secrets, verbose=verbose)
    asyncio.run(process.run(build_gateway))


@app.command("status")
def status(json_out: bool = JsonOption) -> None:
    """Is a gateway running, where, since when; its sessions and runs (exit code 1 when none runs)."""
    import asyncio
    import time

    from claw.cli.common import print_json
    from claw.client.status_probe import probe_status
    from claw.paths import Paths
    from claw.server.auth import resolve_token
    from claw.server.runtime_file import read_runtime

    paths = Paths.from_env()
    service = gateway_service.service_status()
    extra = {} if service is None else {"service": service}
    if service is not None and not json_out:
        gateway_service.print_service(service)
    info = read_runtime(paths)
    if info is None:
        if json_out:
            print_json({"running": False, **extra})
        else:
            typer.echo("No gateway is running (start one with `claw gateway run` or `claw gateway install`).")
        raise typer.Exit(1)
    token, _ = resolve_token(paths)
    state = asyncio.run(probe_status(info.url, token or ""))
    report = {"running": True, **info.to_wire(), "uptimeSeconds": round(time.time() - info.started_at, 1), **state}
    if json_out:
        print_json({**report, **extra})
        return
    typer.echo(f"Gateway running at {info.url} (pid {info.pid}, version {info.version})")
    typer.echo(f"  up {_duration(report['uptimeSeconds'])}")
    if "error" in state:
        typer.echo(f"  but it did not answer: {state['error']}")
        raise typer.Exit(1)
    typer.echo(f"  agents: {', '.join(state.get('agents', []))}")
    sessions = state.get("sessions") or {}
    typer.echo(f"  sessions: {sessions.get('count', 0)} · active runs: {state.get('activeRuns', 0)}")


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m {secs}s" if hours else f"{minutes}m {secs}s" if minutes else f"{secs}s"


@app.command("token")
def token() -> None:
    """Print the gateway token (CLAW_GATEWAY_TOKEN when set, else the file `claw init` wrote)."""
    from claw.errors import ConfigError
    from claw.paths import Paths
    from claw.server.auth import TOKEN_ENV, resolve_token

    value, _ = resolve_token(Paths.from_env())
    if value is None:
        raise ConfigError(f"no gateway token yet: run `claw init` (or set {TOKEN_ENV})")
    typer.echo(value)


for _name in ("install", "start", "stop", "restart", "uninstall"):
    app.command(_name)(getattr(gateway_service, _name))
