"""`claw skills ls|info|check|add|new|rm`: see, install and write skills."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from claw.cli.common import AgentOption, JsonOption, WideOption, listing

app = typer.Typer(help="List, inspect, install, create and remove skills.", no_args_is_help=True)

_MARKS = {"ok": "✓", "ineligible": "✗", "shadowed": "~", "invalid": "!"}


def _say(line: str, file: Any = None) -> None:
    """Print a line that carries names claw did not write (a skill's name, files, archive members)."""
    from claw.untrusted import shown

    print(shown(line), file=file)


def _call(agent_id: str, method: str, **params: Any) -> Any:
    """One gateway method for `agent_id`, through the running gateway when there is one."""
    from claw.cli.gateway_call import call_agent_method

    return call_agent_method(agent_id, method, **params)


@listing(app)
def ls(
    agent_id: str = AgentOption,
    show_all: bool = typer.Option(False, "--all", help="Also the ineligible, shadowed and invalid, with reasons."),
    json_out: bool = JsonOption,
    wide: bool = WideOption,
) -> None:
    """The skills the agent can use (name, source, description)."""
    rows = _call(agent_id, "skills.list", all=show_all)
    if json_out:
        from claw.cli.common import print_json

        print_json(rows)
        return
    if not rows:
        hint = "" if show_all else " usable (try --all)"
        _say(f"No skills{hint}. Write one with `claw skills new NAME` or install one with `claw skills add PATH`.")
        return
    from claw.cli.table import Column, print_table

    # One line per skill (`claw skills info NAME` and --json have the full text).
    columns = (
        Column(""),
        Column("NAME", flex=True, floor=16),
        Column("SOURCE"),
        Column("DESCRIPTION / REASON", flex=True),
    )
    table = [(_MARKS[row["status"]], row["name"], row["source"], row["reason"] or row["description"]) for row in rows]
    print_table(columns, table, wide=wide)


@app.command("info")
def info(
    name: str = typer.Argument(..., help="Skill name."), agent_id: str = AgentOption, json_out: bool = JsonOption
) -> None:
    """Everything about one skill: where it is, what it needs, whether it is usable, its files."""
    data = _call(agent_id, "skills.info", name=name)
    if json_out:
        from claw.cli.common import print_json

        print_json(data)
        return
    _say(f"{data['name']} ({data['source']}) — {'ready' if data['eligible'] else 'not usable'}")
    if data["reason"]:
        _say(f"  why:         {data['reason']}")
    _say(f"  description: {data['description']}")
    _say(f"  path:        {data['path']}")
    req = data.get("requires") or {}
    needs = [f"{key} {', '.join(values)}" for key, values in req.items() if values]
    if data.get("os"):
        needs.append(f"os {', '.join(data['os'])}")
    if "requires" in data:
        _say(
            f"  needs:       {'; '.join(needs) or 'nothing'}" + (" (always: checks skipped)" if data["always"] else "")
        )
        invocable = f"{data['command']} or /skill {data['name']}" if data["userInvocable"] else "no"
        _say(f"  run by hand: {invocable}")
        _say(f"  in prompt:   {'no (disable-model-invocation)' if data['disableModelInvocation'] else 'yes'}")
        _say(f"  files:       {', '.join(data['files'])}")
        if data["scripts"]:
            _say(f"  scripts:     {', '.join(data['scripts'])}")
    for copy in data.get("copies", []):
        _say(f"  also at:     {copy['path']} ({copy['reason']})")


@app.command("check")
def check(
    agent_id: str = AgentOption,
    channel: str = typer.Option("cli", help="Check as seen from this channel."),
    sender: str = typer.Option("local", help="…and this sender id."),
    json_out: bool = JsonOption,
) -> None:
    """Why each skill is, or is not, usable."""
    data = _call(agent_id, "skills.check", channel=channel, senderId=sender)
    if json_out:
        from claw.cli.common import print_json

        print_json(data)
        return
    for row in data["skills"]:
        detail = f": {row['reason']}" if row["reason"] else ""
        _say(f"{_MARKS[row['status']]} {row['name']} ({row['source']}){detail}")
    c = data["counts"]
    _say(f"{c['ok']} ready, {c['ineligible']} not eligible, {c['shadowed']} shadowed, {c['invalid']} invalid")


@app.command("add")
def add(
    source: Path = typer.Argument(..., help="A skill folder, .zip or .tar.gz."),
    force: bool = typer.Option(False, "--force", help="Replace an installed skill of the same name."),
    trust: bool = typer.Option(False, "--trust", help="Install even when SKILL.md looks like a dropper."),
) -> None:
    """Install a skill into $CLAW_HOME/skills (validated, then moved into place in one step)."""
    from claw.cli.common import load
    from claw.skills.install import add_skill

    paths, _config = load()
    done = add_skill(source, paths.skills_dir, force=force, trust=trust)
    verb = "Replaced" if done.replaced else "Installed"
    _say(f"{verb} skill {done.skill.name} at {done.skill.directory}")
    for finding in done.findings:
        _say(f"warning: SKILL.md {finding} (installed because of --trust)", file=sys.stderr)
    if done.scripts:
        listed = ", ".join(done.scripts)
        _say(
            f"warning: {done.skill.name} carries scripts ({listed}); read them before the agent runs them",
            file=sys.stderr,
        )


@app.command("new")
def new(
    name: str = typer.Argument(..., help="Skill name: lowercase letters, digits and hyphens."),
    agent_id: str = AgentOption,
    managed: bool = typer.Option(False, "--managed", help="Create it in $CLAW_HOME/skills (all agents)."),
    description: str | None = typer.Option(None, "--description", "-d", help="The one-line description."),
) -> None:
    """Scaffold a SKILL.md in the agent's workspace skills/ (or $CLAW_HOME/skills with --managed)."""
    from claw.cli.common import load
    from claw.skills.install import scaffold
    from claw.workspace import workspace_dir

    paths, config = load(agent_id)
    parent = paths.skills_dir if managed else workspace_dir(paths, config, agent_id) / "skills"
    created = scaffold(name, parent, description)
    _say(f"Created {created}")
    if description is None:  # the placeholder keeps it out of the prompt until the user writes one
        _say("Write its description (the model picks skills by it) and steps, then run `claw skills check`.")
    else:
        _say("Edit it, then run `claw skills check`.")


@app.command("rm")
def rm(name: str = typer.Argument(..., help="An installed skill's name.")) -> None:
    """Remove a skill installed with `claw skills add`."""
    from claw.cli.common import load
    from claw.skills.install import remove_skill

    paths, _config = load()
    removed = remove_skill(name, paths.skills_dir)
    _say(f"Removed skill {name} ({removed})")
