"""The `claw` command. Sub-apps live one per module; heavy imports stay inside command bodies."""

from __future__ import annotations

import sys

import typer

from claw.cli import agent as agent_cmd
from claw.cli import agents as agents_cmd
from claw.cli import automations as automations_cmd
from claw.cli import channels as channels_cmd
from claw.cli import chat as chat_cmd
from claw.cli import config as config_cmd
from claw.cli import doctor as doctor_cmd
from claw.cli import gateway as gateway_cmd
from claw.cli import hooks as hooks_cmd
from claw.cli import init as init_cmd
from claw.cli import memory as memory_cmd
from claw.cli import outbox as outbox_cmd
from claw.cli import pairing as pairing_cmd
from claw.cli import sessions as sessions_cmd
from claw.cli import skills as skills_cmd
from claw.cli import workspace as workspace_cmd
from claw.errors import ClawError

app = typer.Typer(
    name="claw",
    help="claw: a terminal-first, self-hosted personal AI agent gateway.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

app.command("init")(init_cmd.init)
app.command("agent")(agent_cmd.agent)
app.command("chat")(chat_cmd.chat)
app.command("doctor")(doctor_cmd.doctor)
app.add_typer(config_cmd.app, name="config")
app.add_typer(workspace_cmd.app, name="workspace")
app.add_typer(sessions_cmd.app, name="sessions")
app.add_typer(skills_cmd.app, name="skills")
app.add_typer(automations_cmd.app, name="automations")
app.add_typer(gateway_cmd.app, name="gateway")
app.add_typer(agents_cmd.app, name="agents")
app.add_typer(memory_cmd.app, name="memory")
app.add_typer(hooks_cmd.app, name="hooks")
app.add_typer(channels_cmd.app, name="channels")
app.add_typer(pairing_cmd.app, name="pairing")
app.add_typer(outbox_cmd.app, name="outbox")


def main() -> None:
    """Entry point: user errors become one line on stderr and a non-zero exit, never a traceback."""
    try:
        app()
    except ClawError as exc:
        print(f"claw: {exc.message}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        print("claw: interrupted", file=sys.stderr)
        sys.exit(130)
