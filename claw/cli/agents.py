"""`claw agents ls|add|rm|bindings|route`: several agents, each with its own workspace, and who talks to which."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from claw.cli.common import JsonOption, WideOption, listing

app = typer.Typer(help="Agents and the bindings that route messages to them.", no_args_is_help=True)


@listing(app)
def ls(json_out: bool = JsonOption, wide: bool = WideOption) -> None:
    """Each agent: workspace, model, sessions, bindings."""
    from claw.cli.common import load, print_json
    from claw.store.sessions import SessionStore
    from claw.workspace import workspace_dir

    paths, config = load()
    rows: list[dict[str, Any]] = []
    for agent_id in config.agent_ids:
        settings = config.agent(agent_id)
        sessions_dir = paths.sessions_dir(agent_id)
        rows.append(
            {
                "agentId": agent_id,
                "workspace": str(workspace_dir(paths, config, agent_id)),
                "model": settings.model.primary,
                "fallbacks": list(settings.model.fallbacks),
                "sessions": len(SessionStore(sessions_dir).list()) if sessions_dir.is_dir() else 0,
                "bindings": sum(1 for b in config.bindings if b.agent_id == agent_id),
                "default": agent_id == "main",
            }
        )
    if json_out:
        print_json(rows)
        return
    from claw.cli.table import Column, print_table

    columns = (
        Column("AGENT", flex=True, floor=14),
        Column("MODEL", flex=True, floor=16),
        Column("SESSIONS", right=True),
        Column("BINDINGS", right=True),
        Column("WORKSPACE", flex=True, floor=16, cut="middle"),
    )
    table = [
        (
            r["agentId"] + (" (default)" if r["default"] else ""),
            r["model"],
            r["sessions"],
            r["bindings"],
            r["workspace"],
        )
        for r in rows
    ]
    print_table(columns, table, wide=wide)


@app.command("add")
def add(
    agent_id: str = typer.Argument(..., help="New agent id (a-z, 0-9, '_', '-')."),
    workspace: Path | None = typer.Option(None, "--workspace", "-w", help="Workspace folder (default: workspace-ID)."),
) -> None:
    """Add an agent: a config section and a workspace seeded from the template."""
    from claw.cli.common import load
    from claw.cli.init import init
    from claw.errors import UsageError
    from claw.paths import check_agent_id

    check_agent_id(agent_id)
    _, config = load()
    if agent_id in config.agent_ids:
        raise UsageError(f"agent {agent_id!r} already exists (see `claw agents ls`)")
    init(workspace=workspace, agent=agent_id)


@app.command("rm")
def rm(agent_id: str = typer.Argument(..., help="The agent to remove from config.")) -> None:
    """Remove an agent from config.toml. Its workspace and sessions stay on disk."""
    from claw import config_edit
    from claw.cli.common import load
    from claw.errors import UsageError
    from claw.workspace import workspace_dir

    paths, config = load()
    if agent_id == "main":
        raise UsageError("the main agent cannot be removed")
    if agent_id not in config.agent_ids:
        raise UsageError(f"no agent {agent_id!r} (see `claw agents ls`)")
    bound = [i for i, b in enumerate(config.bindings) if b.agent_id == agent_id]
    if bound:
        raise UsageError(f"agent {agent_id!r} still has {len(bound)} binding(s); remove them from config.toml first")
    workspace = workspace_dir(paths, config, agent_id)
    with config_edit.editing(paths.config_file) as doc:
        config_edit.unset_value(doc, ("agents", "list", agent_id))
    print(
        f"Removed agent {agent_id}. Its workspace ({workspace}) and sessions ({paths.sessions_dir(agent_id)}) are kept."
    )


@app.command("bindings")
def bindings(json_out: bool = JsonOption, wide: bool = WideOption) -> None:
    """The bindings, most specific first: the order in which they are tried."""
    from claw.cli.common import load, print_json
    from claw.gateway.routing import specificity

    _, config = load()
    ordered = sorted(enumerate(config.bindings), key=lambda ib: (-specificity(ib[1]), ib[0]))
    rows = [_binding_row(i, b) | {"specificity": specificity(b)} for i, b in ordered]
    if json_out:
        print_json(rows)
        return
    if not rows:
        print("No bindings: every message goes to the default agent (main). Add [[bindings]] to config.toml.")
        return
    from claw.cli.table import Column, print_table

    columns = (
        Column("#", right=True),
        Column("AGENT", flex=True),
        Column("MATCH", flex=True, floor=20),
        Column("SPECIFICITY", right=True),
    )
    print_table(columns, [(r["index"], r["agentId"], r["match"], r["specificity"]) for r in rows], wide=wide)


@app.command("route")
def route_cmd(
    channel: str = typer.Option("cli", help="Channel the message arrives on, e.g. telegram."),
    peer: str = typer.Option("local", help="Sender / peer id."),
    account: str = typer.Option("default", help="Channel account id."),
    group: str | None = typer.Option(None, help="Group id (for group messages)."),
    guild: str | None = typer.Option(None, help="Guild / server id."),
    team: str | None = typer.Option(None, help="Team / workspace id."),
    json_out: bool = JsonOption,
) -> None:
    """Explain which agent a message would reach, and why."""
    from claw.cli.common import load, print_json
    from claw.gateway.routing import explain, route
    from claw.vocab.msg_context import MsgContext

    _, config = load()
    ctx = MsgContext(
        body="",
        channel=channel,
        peer_id=peer,
        account_id=account,
        group_id=group,
        guild_id=guild,
        team_id=team,
        chat_type="group" if group else "direct",
    )
    verdicts = explain(ctx, config.bindings)
    agent = route(ctx, config.bindings)
    winner = next((v for v in verdicts if v.matched), None)
    result: dict[str, Any] = {
        "agentId": agent,
        "winner": winner.index if winner else None,
        "bindings": [_binding_row(v.index, v.binding) | {"matched": v.matched, "reason": v.reason} for v in verdicts],
    }
    if json_out:
        print_json(result)
        return
    if winner is None:
        print(f"→ {agent}: no binding matches, so the default agent gets it.")
    else:
        print(f"→ {agent}: binding #{winner.index} wins ({winner.reason}; specificity {winner.specificity}).")
    for v in verdicts:
        mark = "✓" if v.matched else "✗"
        print(f"  {mark} #{v.index} → {v.binding.agent_id}: {v.reason}")


def _binding_row(index: int, binding: Any) -> dict[str, Any]:
    fields = binding.model_dump(by_alias=True, exclude_none=True)
    agent = fields.pop("agentId")
    match = ", ".join(f"{k}={v}" for k, v in fields.items()) or "everything"
    return {"index": index, "agentId": agent, "match": match}
