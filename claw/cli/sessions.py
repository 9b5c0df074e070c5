"""`claw sessions ls|show|reset|rm|export` (and `search|reindex|fork`, from `claw/cli/sessions_find.py`):
look after an agent's conversations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from claw.cli import sessions_find
from claw.cli.common import AgentOption, JsonOption, WideOption, listing
from claw.untrusted import shown

app = typer.Typer(help="List, search, read, fork, reset, remove and export sessions.", no_args_is_help=True)

KeyArgument = typer.Argument("main", help="Session key, e.g. agent:main:main (default: the agent's main session).")


def _call(agent_id: str, method: str, **params: Any) -> Any:
    """One gateway method for `agent_id`, through the running gateway when there is one."""
    from claw.cli.gateway_call import call_agent_method

    return call_agent_method(agent_id, method, **params)


def _session_rows(agent_id: str) -> Iterator[dict[str, Any]]:
    """`sessions.list`'s rows for `agent_id`: the running gateway's, else read off the store as they are used."""
    from claw.cli.gateway_call import running_gateway_url

    if running_gateway_url() is not None:
        yield from _call(agent_id, "sessions.list")["sessions"]
        return
    from claw.cli import state_methods
    from claw.cli.common import load

    load(agent_id)  # a bad config or an unknown agent is reported first, as `_call` does
    yield from state_methods.session_rows(state_methods.host(), agent_id)


@listing(app)
def ls(
    agent_id: str = AgentOption,
    json_out: bool = JsonOption,
    tree: bool = typer.Option(
        False, "--tree", help="Show subagent sessions and forks under the sessions they came from."
    ),
    wide: bool = WideOption,
) -> None:
    """Table of sessions: key, id, messages, last updated, cost (priced now, from the usage ledger)."""
    from claw.cli.common import print_json_rows
    from claw.cli.usage import cost_cell, with_costs

    listed = with_costs(_session_rows(agent_id), agent_id)
    if json_out and not tree:
        print_json_rows(listed)  # as they are read: the first row of 50,000 is out before the last is read
        return
    rows = list(listed)
    if tree and (rows or json_out):
        _print_tree(rows, json_out, agent_id, wide)
        return
    if not rows:
        print(f'No sessions yet for agent {agent_id}. Start one with: claw agent -m "hello"')
        return
    from claw.cli.table import Column, local_time, print_table

    columns = (
        Column("SESSION KEY", flex=True, floor=20, cut="middle"),
        Column("ID"),
        Column("MESSAGES", right=True),
        Column("UPDATED"),
        Column("COST", right=True),
        Column("LAST MESSAGE", flex=True),
    )
    table = [
        (row["key"], row["sessionId"][:8], row["messages"], local_time(row["updatedAt"]), cost_cell(row),
         row["lastMessagePreview"] or "")
        for row in rows
    ]  # fmt: skip
    print_table(columns, table, wide=wide)


def _print_tree(rows: list[dict[str, Any]], json_out: bool, agent_id: str, wide: bool) -> None:
    from claw.cli.common import print_json
    from claw.cli.sessions_tree import flatten, label, nest

    forest = nest(rows)
    if json_out:
        print_json(forest)
        return
    from claw.cli.table import Column, local_time, print_table

    columns = (
        Column("SESSION", flex=True, floor=24, cut="note"),  # the branch and key, then the fork or spawn note
        Column("STATUS"),
        Column("UPDATED"),
        Column("LAST MESSAGE", flex=True),
    )
    table = [
        (
            label(depth, row, agent_id),
            row.get("subagentStatus"),
            local_time(row["updatedAt"]),
            row["lastMessagePreview"] or "",
        )
        for depth, row in flatten(forest)
    ]
    print_table(columns, table, wide=wide)


@app.command("show")
def show(
    key: str = KeyArgument,
    agent_id: str = AgentOption,
    limit: int = typer.Option(200, help="At most this many entries."),
    json_out: bool = JsonOption,
) -> None:
    """Print a session's transcript, readable (or its raw entries with --json)."""
    from claw.cli.common import print_json

    history = _call(agent_id, "chat.history", sessionKey=key, limit=limit)
    if history["sessionId"] is None:
        from claw.errors import NotFoundError

        raise NotFoundError(f"no session {history['sessionKey']} (see `claw sessions ls`)")
    if json_out:
        print_json(history)
        return
    from rich.console import Console
    from rich.markup import escape

    from claw.transcript_entries import trailing_partial

    console = Console(highlight=False)
    from claw.transcript_entries import undone_ids

    console.print(f"[bold]{escape(shown(history['sessionKey']))}[/] (id {history['sessionId']})")
    undone = undone_ids(history["messages"])  # kept in the record, out of the model's history (/undo)
    for entry in history["messages"]:
        if entry.get("id") in undone and "role" in entry:
            console.print("\n[yellow](undone)[/]", end="")
        _print_entry(console, entry)
    streaming = trailing_partial(history["messages"])
    if streaming is not None:  # partial entries at the end: a reply is streaming (superseded ones are skipped)
        console.print(f"\n[bold green]assistant[/] [yellow](still streaming)[/]\n{escape(streaming)}")


def _print_entry(console: Any, entry: dict[str, Any]) -> None:
    from rich.markup import escape

    role = entry.get("role")
    when = _local(entry.get("createdAt", ""))
    if entry.get("type") == "compaction":
        console.print(f"\n[dim]── compacted: {escape(entry.get('summary', '')[:400])}[/]")
    elif role == "user":
        console.print(
            f"\n[bold cyan]you[/] [dim]{when}[/]\n{escape(entry.get('display') or entry.get('content') or '')}"
        )
    elif role == "assistant":
        text = entry.get("content") or ""
        thought = entry.get("thinking")
        if isinstance(thought, str) and thought:  # the reasoning, marked and dim: never part of the reply
            label = f"[dim]assistant {when} · thinking (not part of the reply)[/]"
            console.print(f"\n{label}\n[dim italic]{escape(thought)}[/]")
        if entry.get("interrupted"):  # a turn that never finished: shown even when nothing had streamed
            from claw.transcript_markdown import interrupted_label

            mark = f"[yellow]({escape(interrupted_label(entry))})[/]"
            body = f"\n{escape(text)}" if text else ""
            console.print(f"\n[bold green]assistant[/] [dim]{when}[/] {mark}{body}")
        elif text:
            mark = " [yellow](aborted)[/]" if entry.get("aborted") else ""
            console.print(f"\n[bold green]assistant[/] [dim]{when}[/]{mark}\n{escape(text)}")
        for call in entry.get("toolCalls") or ():
            console.print(f"[dim]→ {escape(call['name'])} {escape(call.get('arguments', ''))[:200]}[/]")
    elif role == "tool":
        mark = "✗" if entry.get("isError") else "✓"
        first = (entry.get("content") or "").strip().splitlines()[:1]
        console.print(f"[dim]{mark} {escape(entry.get('name', ''))}: {escape(first[0][:160]) if first else ''}[/]")
    elif role == "system":
        console.print(f"\n[magenta]system[/] {escape(entry.get('content') or '')}")


@app.command("reset")
def reset(key: str = KeyArgument, agent_id: str = AgentOption, json_out: bool = JsonOption) -> None:
    """Archive the session's transcript and start a new session id under the same key."""
    result = _call(agent_id, "sessions.reset", key=key)
    if json_out:
        from claw.cli.common import print_json

        print_json(result)
    else:
        new_id = result["entry"]["sessionId"]
        print(f"Reset {shown(result['key'])}: new session id {new_id} (old transcript in archive/).")


@app.command("rm")
def rm(key: str = typer.Argument(..., help="Session key to remove."), agent_id: str = AgentOption) -> None:
    """Remove a session from the index (its transcript is kept in archive/)."""
    result = _call(agent_id, "sessions.delete", key=key)
    print(f"Removed {shown(result['key'])} (transcript kept in archive/).")


@app.command("export")
def export(
    key: str = KeyArgument,
    agent_id: str = AgentOption,
    output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
    fmt: str = typer.Option("md", "--format", "-f", help="md (Markdown), jsonl (the raw entries) or html (one page)."),
) -> None:
    """Export a session as Markdown, JSON lines or a self-contained HTML page, tool calls included."""
    if fmt not in ("md", "jsonl", "html"):
        from claw.errors import UsageError

        raise UsageError(f"--format {fmt!r}: use md, jsonl or html")
    text = _call(agent_id, "sessions.export", sessionKey=key, format=fmt)["text"]
    if output is None:
        print(text, end="")
        return
    from claw.store.atomic import atomic_write_text

    atomic_write_text(output, text, 0o600)
    print(f"Wrote {output}")


app.command("search")(sessions_find.search)
app.command("reindex")(sessions_find.reindex)
app.command("fork")(sessions_find.fork)


def _local(iso: str) -> str:
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M")
    except (ValueError, AttributeError):
        return iso or ""
