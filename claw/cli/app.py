"""The `claw` command. Sub-apps live one per module; heavy imports stay inside command bodies."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any

import typer

from claw.errors import ClawError
from claw.paths import use_private_umask

app = typer.Typer(
    name="claw",
    help="claw: a terminal-first, self-hosted personal AI agent gateway.\n\n"
    "Run `claw` alone in a terminal to open the console (as `claw chat` does).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(asked: bool) -> None:
    if asked:
        from claw import __version__

        print(f"claw {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    _version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print claw's version and exit."
    ),
) -> None:
    # A callback keeps `claw` a group of commands even when `register` added one command, or none.
    pass


def _command(name: str, function: Callable[..., Any]) -> None:
    app.command(name)(function)


def _group(name: str, sub_app: typer.Typer) -> None:
    app.add_typer(sub_app, name=name)


# One function a subcommand, in the order `claw --help` lists them; each imports only its own module.
def _init() -> None:
    from claw.cli.init import init

    _command("init", init)


def _agent() -> None:
    from claw.cli.agent import agent

    _command("agent", agent)


def _chat() -> None:
    from claw.cli.chat import chat

    _command("chat", chat)


def _doctor() -> None:
    from claw.cli.doctor import app as doctor_app

    _group("doctor", doctor_app)


def _config() -> None:
    from claw.cli.config import app as config_app

    _group("config", config_app)


def _workspace() -> None:
    from claw.cli.workspace import app as workspace_app

    _group("workspace", workspace_app)


def _sessions() -> None:
    from claw.cli.sessions import app as sessions_app

    _group("sessions", sessions_app)


def _skills() -> None:
    from claw.cli.skills import app as skills_app

    _group("skills", skills_app)


def _automations() -> None:
    from claw.cli.automations import app as automations_app

    _group("automations", automations_app)


def _gateway() -> None:
    from claw.cli.gateway import app as gateway_app

    _group("gateway", gateway_app)


def _agents() -> None:
    from claw.cli.agents import app as agents_app

    _group("agents", agents_app)


def _memory() -> None:
    from claw.cli.memory import app as memory_app

    _group("memory", memory_app)


def _hooks() -> None:
    from claw.cli.hooks import app as hooks_app

    _group("hooks", hooks_app)


def _channels() -> None:
    from claw.cli.channels import app as channels_app

    _group("channels", channels_app)


def _pairing() -> None:
    from claw.cli.pairing import app as pairing_app

    _group("pairing", pairing_app)


def _devices() -> None:
    from claw.cli.devices import app as devices_app

    _group("devices", devices_app)


def _outbox() -> None:
    from claw.cli.outbox import app as outbox_app

    _group("outbox", outbox_app)


def _mcp() -> None:
    from claw.cli.mcp import app as mcp_app

    _group("mcp", mcp_app)


def _system() -> None:
    from claw.cli.system import app as system_app

    _group("system", system_app)


def _usage() -> None:
    from claw.cli.usage import app as usage_app

    _group("usage", usage_app)


SUBCOMMANDS: dict[str, Callable[[], None]] = {
    "init": _init,
    "agent": _agent,
    "chat": _chat,
    "doctor": _doctor,
    "config": _config,
    "workspace": _workspace,
    "sessions": _sessions,
    "skills": _skills,
    "automations": _automations,
    "gateway": _gateway,
    "agents": _agents,
    "memory": _memory,
    "hooks": _hooks,
    "channels": _channels,
    "pairing": _pairing,
    "devices": _devices,
    "outbox": _outbox,
    "mcp": _mcp,
    "usage": _usage,
    "system": _system,
}
_registered: set[str] = set()


def register(only: str | None = None) -> typer.Typer:
    """Add the subcommands to `app` (all of them, or just `only`) and return it.

    `main` passes the first word of the command line when it names a subcommand: `claw agent -m …`
    then neither imports nor builds the click commands of the fifteen it does not run."""
    for name, add in SUBCOMMANDS.items():
        if only in (None, name) and name not in _registered:
            add()
            _registered.add(name)
    return app


def _opens_console(args: list[str]) -> bool:
    """Bare `claw` in a terminal opens the console; with its output piped or redirected it prints the help
    (and exits 2, as a missing command does), so a script or a pipe never finds itself in a full-screen app."""
    return not args and all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))


def main() -> None:
    """Entry point: user errors become one line on stderr and a non-zero exit, never a traceback."""
    use_private_umask()
    args = ["chat"] if _opens_console(sys.argv[1:]) else sys.argv[1:]
    first = args[0] if args else None
    if first != "--version":  # the version needs no subcommand: none is imported
        register(first if first in SUBCOMMANDS else None)
    try:
        app(args=args)
    except ClawError as exc:
        from claw.untrusted import shown  # the message may name a file or an archive member claw did not write

        print(f"claw: {shown(exc.message, keep=chr(10))}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        print("claw: interrupted", file=sys.stderr)
        sys.exit(130)
    finally:
        # What a finished command leaves needs no collecting: the interpreter's last collection would walk
        # every object the imports made (a tenth of a cold `claw agent -m` here, a third under load). Every
        # file and database claw writes is closed before this point, so no finalizer in a cycle has work left.
        gc.freeze()
