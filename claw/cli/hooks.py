"""`claw hooks ls|enable|disable`: see the lifecycle hooks and turn them on or off."""

from __future__ import annotations

from typing import Any

import typer

from claw.cli.common import AgentOption, JsonOption, WideOption, listing
from claw.untrusted import shown

app = typer.Typer(help="List, enable and disable lifecycle hooks.", no_args_is_help=True)

_MARKS = {"enabled": "✓", "disabled": "○", "shadowed": "~", "invalid": "!", "changed": "!"}  # ○: off by choice


def _call(method: str, **params: Any) -> Any:
    """Through the running gateway when there is one (it applies the change at once), else in-process."""
    from claw.cli.gateway_call import call_gateway

    return call_gateway(method, **params)


@listing(app)
def ls(agent_id: str = AgentOption, json_out: bool = JsonOption, wide: bool = WideOption) -> None:
    """Every hook found: name, events, source, enabled, path (shadowed and invalid copies last)."""
    rows = _call("hooks.list", agentId=agent_id)
    if json_out:
        from claw.cli.common import print_json

        print_json(rows)
        return
    if not rows:
        print("No hooks. Put one in $CLAW_HOME/hooks/<name>/ (HOOK.md + handler.py).")
        return
    from claw.cli.table import Column, print_table

    columns = (
        Column(""),
        Column("NAME", flex=True, floor=16),
        Column("EVENTS", flex=True, floor=12),
        Column("SOURCE"),
        Column("ENABLED"),
        Column("PATH", flex=True, floor=16, cut="middle"),
    )
    table = []
    for row in rows:
        state = "yes" if row["enabled"] else ("no" if row["status"] == "disabled" else row["status"])
        table.append((_MARKS[row["status"]], row["name"], ", ".join(row["events"]), row["source"], state, row["path"]))
    print_table(columns, table, wide=wide)
    for row in rows:
        if row["status"] in ("shadowed", "invalid", "changed"):
            print(shown(f"{_MARKS[row['status']]} {row['name']} ({row['source']}): {row['reason']}"))


@app.command("enable")
def enable(name: str = typer.Argument(..., help="Hook name."), agent_id: str = AgentOption) -> None:
    """Run the hook from now on (written to config.toml as hooks.entries.NAME)."""
    row = _call("hooks.enable", name=name, agentId=agent_id)
    print(shown(f"Enabled hook {row['name']} ({row['source']}, {row['path']}) for {', '.join(row['events'])}."))
    if row["source"] == "workspace":
        print("Note: a workspace hook runs code the agent itself can edit; keep an eye on its folder.")


@app.command("disable")
def disable(name: str = typer.Argument(..., help="Hook name."), agent_id: str = AgentOption) -> None:
    """Stop running the hook (written to config.toml as hooks.entries.NAME)."""
    row = _call("hooks.disable", name=name, agentId=agent_id)
    print(shown(f"Disabled hook {row['name']} ({row['source']})."))
