"""`claw workspace path|show|edit`: the agent's workspace files (SOUL.md, AGENTS.md, …)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from typing import TYPE_CHECKING

import typer

from claw.cli.common import AgentOption, JsonOption, load, print_json
from claw.errors import ClawError, NotFoundError

if TYPE_CHECKING:
    from claw.workspace import FileSize

app = typer.Typer(help="The agent's workspace: SOUL.md, AGENTS.md, TOOLS.md, … plus memory/ and skills/.")

NameArgument = typer.Argument(..., help="soul, agents, tools, identity, user or memory (or the file name).")


@app.command("path")
def path_cmd(agent: str = AgentOption) -> None:
    """Print the agent's workspace folder."""
    from claw.workspace import workspace_dir

    paths, config = load(agent)
    typer.echo(str(workspace_dir(paths, config, agent)))


@app.command("show")
def show_cmd(
    name: str | None = typer.Argument(None, help="Print this file (soul, agents, …); omit for an overview."),
    agent: str = AgentOption,
    as_json: bool = JsonOption,
) -> None:
    """Without NAME: each file's size against the per-file cap. With NAME: print the file."""
    from claw import workspace as ws_mod

    paths, config = load(agent)
    ws = ws_mod.workspace_dir(paths, config, agent)
    if name is not None:
        from claw.safe_read import read_agent_text

        path = ws / ws_mod.resolve_name(name)
        text = read_agent_text(ws, path.name)  # a link out or a FIFO: a one-line refusal, never a hang
        if text is None:
            hint = f"create it with `claw workspace edit {name}`"
            raise NotFoundError(f"{path} does not exist; {hint}")
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
        return

    settings = config.agent(agent)
    cap = settings.bootstrap_max_chars
    sizes = [ws_mod.measure(ws / file, cap) for file in ws_mod.BOOTSTRAP_NAMES.values()]
    notes, skills = ws_mod.count_daily_notes(ws), ws_mod.count_skills(ws)
    if as_json:
        files = [
            {
                "name": s.name,
                "exists": s.exists,
                "chars": s.chars,
                "cap": s.cap,
                "truncated": s.truncated,
                "refused": s.refused,
            }
            for s in sizes
        ]
        print_json({"workspace": str(ws), "files": files, "dailyNotes": notes, "skills": skills})
        return

    from claw.cli.table import Column, print_table  # the same plain table as every other listing

    print(f"workspace {ws}")
    columns = (Column("FILE"), Column("CHARS", right=True), Column("CAP", right=True), Column("STATUS", flex=True))
    rows = [(s.name, f"{s.chars:,}" if s.exists else "-", f"{s.cap:,}" if s.cap else "-", _status(s)) for s in sizes]
    print_table(columns, rows)
    total = sum(min(s.chars, s.cap) for s in sizes if s.cap)
    print(f"injected total: up to {total:,} of {settings.bootstrap_total_max_chars:,} chars")
    print(f"memory/: {notes} daily notes    skills/: {skills} skills")
    for s in sizes:
        if s.refused is not None:
            print(f"skipped {s.name}: {s.refused}")


def _status(size: FileSize) -> str:
    if not size.exists:
        return "missing"
    if size.refused is not None:
        return "SKIPPED (see below)"
    if size.cap is None:
        return "searched, not injected"
    if size.chars == 0:
        return "empty (skipped)"
    return "TRUNCATED" if size.truncated else "ok"


@app.command("edit")
def edit_cmd(name: str = NameArgument, agent: str = AgentOption) -> None:
    """Open a workspace file in $VISUAL / $EDITOR (vi if unset), creating it from the template if missing."""
    from claw import workspace as ws_mod
    from claw.paths import bundled_dir

    file_name = ws_mod.resolve_name(name)
    paths, config = load(agent)
    path = ws_mod.workspace_dir(paths, config, agent) / file_name
    if ws_mod.create_from_template(bundled_dir("workspace-template"), path):
        typer.echo(f"created {path} from the template")

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        command = [*shlex.split(editor), str(path)]
    except ValueError as exc:
        raise ClawError(f"cannot parse the editor command {editor!r}: {exc}") from None
    try:
        result = subprocess.run(command, check=False)
    except FileNotFoundError:
        raise ClawError(f"editor not found: {editor!r}; set $VISUAL or $EDITOR") from None
    except PermissionError:
        raise ClawError(f"editor {editor!r} is not executable; set $VISUAL or $EDITOR") from None
    if result.returncode != 0:
        status = result.returncode
        raise ClawError(f"editor {editor!r} exited with status {status}; {path} may be partly saved")
    typer.echo(ws_mod.file_report(path, config.agent(agent).bootstrap_max_chars))
