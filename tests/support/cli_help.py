"""Every `claw ... --help` page, printed in one fresh interpreter, with the modules each left imported.

The command tree is walked the way click resolves it at run time (`list_commands` / `get_command` on
the group Typer builds from `claw.cli.app.app`), so a command added anywhere, however deeply nested,
is probed without being listed here."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

from tests.support.processes import REPO

PROBE = r"""
import contextlib, io, json, sys
import typer
import typer.main
from claw.cli.app import register
app = register()

watched, under = json.loads(sys.argv[1]), json.loads(sys.argv[2])


def walk(command, path, parent):
    yield path, bool(getattr(command, "hidden", False))
    if hasattr(command, "list_commands"):  # a group (Typer vendors its own click: no isinstance check)
        ctx = typer.Context(command, info_name=path[-1] if path else "claw", parent=parent)
        for name in command.list_commands(ctx):
            yield from walk(command.get_command(ctx, name), [*path, name], ctx)


node, parent, info_name = typer.main.get_command(app), None, "claw"
for name in under:
    parent = typer.Context(node, info_name=info_name, parent=parent)
    node, info_name = node.get_command(parent, name), name
pages = []
for path, hidden in list(walk(node, under, parent)):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            app([*path, "--help"], standalone_mode=False, prog_name="claw")
        except SystemExit:
            pass
    heavy = sorted(m for m in watched if m in sys.modules)
    pages.append({"path": path, "hidden": hidden, "text": out.getvalue(), "heavy": heavy})
print(json.dumps(pages))
"""


@dataclass(frozen=True)
class HelpPage:
    """One `--help` page: the command path, what it printed, and the watched modules imported by then."""

    path: tuple[str, ...]
    hidden: bool  # hidden commands are not listed in their group's help
    text: str
    heavy: tuple[str, ...]

    @property
    def usage(self) -> str:
        """The line the page must start with: `Usage: claw <path> ...`."""
        return " ".join(("Usage: claw", *self.path))


def help_pages(watched: tuple[str, ...], under: tuple[str, ...] = ()) -> list[HelpPage]:
    """The help of `claw <under>` and of every command below it (parents first), in one subprocess."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(watched)), json.dumps(list(under))],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [HelpPage(tuple(p["path"]), p["hidden"], p["text"], tuple(p["heavy"])) for p in json.loads(done.stdout)]


def listed_commands(text: str) -> list[str]:
    """The command names a group's help lists under `Commands:`, in order."""
    lines = text.split("\nCommands:\n", 1)[1].splitlines() if "\nCommands:\n" in text else []
    names = []
    for line in lines:
        if not line.startswith("  "):
            break
        if not line.startswith("   "):  # a wrapped description is indented further
            names.append(line.split()[0])
    return names
