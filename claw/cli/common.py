"""Helpers every command module shares: options, loading settings, printing."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import typer

if TYPE_CHECKING:
    from claw.config import Config
    from claw.paths import Paths

AgentOption = typer.Option("main", "--agent", "-a", help="The agent to act on.")
JsonOption = typer.Option(False, "--json", help="Print JSON for scripts.")
WideOption = typer.Option(False, "--wide", help="Show every cell whole, however wide the table gets.")

Command = TypeVar("Command", bound=Callable[..., Any])


def listing(app: typer.Typer, **options: Any) -> Callable[[Command], Command]:
    """Register a group's listing as `ls`, and as `list` too (hidden from help): people type either."""

    def register(function: Command) -> Command:
        app.command("list", hidden=True, **options)(function)
        return app.command("ls", **options)(function)

    return register


def load(agent_id: str | None = None) -> tuple[Paths, Config]:
    """Resolve paths and load config, checking that `agent_id` (if given) is configured."""
    from claw.config import load_config
    from claw.paths import Paths, check_agent_id

    paths = Paths.from_env()
    config = load_config(paths)
    if agent_id is not None:
        check_agent_id(agent_id)
        config.agent(agent_id)
    return paths, config


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def print_json_rows(rows: Iterable[Any]) -> None:
    """A JSON array, one compact row per line, written as the rows come: `indent=2` puts `json` on its
    pure-Python encoder, which for a listing of 50,000 sessions took longer than everything else."""
    out = sys.stdout
    separator = "[\n"
    for row in rows:
        out.write(separator + json.dumps(row, ensure_ascii=False, default=str))
        separator = ",\n"
    out.write("[]\n" if separator == "[\n" else "\n]\n")
