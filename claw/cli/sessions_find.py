"""`claw sessions search|reindex|fork`: find what was said, rebuild the index, branch a session.

Mounted on the `claw sessions` app by `claw/cli/sessions.py`. Each is one gateway method
(`claw.api.sessions_history`), through the running gateway when there is one.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import typer

from claw.cli.common import AgentOption, JsonOption
from claw.untrusted import shown

_RELATIVE = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_ROLES = {"user": "you", "assistant": "assistant", "system": "system"}


def since_iso(value: str, now: datetime | None = None) -> str:
    """`--since` as an ISO-8601 UTC time: `30m`, `12h`, `7d`, `2w` ago, or a date/time (local if no zone)."""
    from claw.errors import UsageError

    text = value.strip().lower()
    found = _RELATIVE.match(text)
    if found:
        ago = timedelta(**{_UNITS[found.group(2)]: int(found.group(1))})
        return ((now or datetime.now(UTC)) - ago).isoformat().replace("+00:00", "Z")
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--since {value!r}: use 30m, 12h, 7d, 2w or a date such as 2026-01-31") from None
    if moment.tzinfo is None:
        moment = moment.astimezone()  # the user's local time
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def search(
    query: str = typer.Argument(..., help='Words to find (all of them), e.g. "zebra crossing".'),
    agent_id: str = AgentOption,
    since: str | None = typer.Option(None, "--since", help="Only messages since: 30m, 12h, 7d, 2w or a date."),
    limit: int = typer.Option(20, "--limit", "-n", min=1, max=200, help="At most this many messages."),
    json_out: bool = JsonOption,
) -> None:
    """Search what was said in the agent's sessions (archived ones too), newest first."""
    from claw.cli.gateway_call import call_agent_method

    params: dict[str, Any] = {"query": query, "limit": limit}
    if since:
        params["since"] = since_iso(since)
    found = call_agent_method(agent_id, "sessions.search", **params)
    rows = found["results"]
    if json_out:
        from claw.cli.common import print_json

        print_json(rows)
        return
    if not rows:
        print(f"No messages match {query!r} in agent {agent_id}'s sessions.")
        return
    _print_hits(rows)


def _print_hits(rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.text import Text

    from claw.cli.table import local_time

    console = Console(highlight=False, soft_wrap=True)
    for row in rows:
        key = row["sessionKey"] or f"(archived {row['sessionId'][:8]})"
        head = Text(key, style="bold")
        head.append(f"  {local_time(row['createdAt'])}  {_ROLES.get(row['role'], row['role'])}", style="dim")
        if row["archived"]:
            head.append("  (archived)", style="yellow")
        console.print(head)
        snippet = Text("    " + row["snippet"])
        for start, end in row["highlights"]:
            snippet.stylize("bold reverse", start + 4, end + 4)
        console.print(snippet)


def reindex(agent_id: str = AgentOption, json_out: bool = JsonOption) -> None:
    """Rebuild the agent's search index from its transcripts (live and archived)."""
    from claw.cli.gateway_call import call_agent_method

    report = call_agent_method(agent_id, "sessions.reindex")
    if json_out:
        from claw.cli.common import print_json

        print_json(report)
        return
    print(
        f"Reindexed agent {agent_id}: {report['messages']} messages from {report['sessions']} sessions "
        f"and {report['archived']} archived transcripts."
    )


def fork(
    key: str = typer.Argument(..., help="The session to fork, e.g. main or agent:main:main."),
    at: int | None = typer.Option(None, "--at", min=1, help="Keep the first N messages (default: all of them)."),
    new_key: str | None = typer.Option(None, "--as", help="The new session's key (default: agent:<id>:fork:<hex>)."),
    agent_id: str = AgentOption,
    json_out: bool = JsonOption,
) -> None:
    """Copy a session up to message N into a new session; the original is left as it is."""
    from claw.cli.gateway_call import call_agent_method

    params: dict[str, Any] = {"sessionKey": key}
    if at is not None:
        params["at"] = at
    if new_key:
        params["newKey"] = new_key
    row = call_agent_method(agent_id, "sessions.fork", **params)
    if json_out:
        from claw.cli.common import print_json

        print_json(row)
        return
    print(shown(f"Forked {row['forkedFrom']} at message {row['forkedAt']} into {row['key']}."))
    print(shown(f"Continue it with: claw chat -s {row['key']}   (or claw agent -s {row['key']} -m …)"))
