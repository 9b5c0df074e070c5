"""`claw usage [--by day|model|agent|session|job|source|run] [--since 7d] [--json]`, `claw usage prune --before DATE`.

`--by run --job ID` gives each run of an automation job its tokens and cost.

The numbers come from the gateway's `usage.*` methods (the running gateway's, else an in-process
one's), so the CLI, the console's `/cost` and remote clients agree. Costs are priced now, from the
stored tokens: a price changed in config changes every view, rows are never rewritten.
"""

from __future__ import annotations

from typing import Any

import typer

from claw.cli.common import JsonOption, WideOption

app = typer.Typer(
    help="Tokens and cost of every model call: totals by day, model, agent, session, job or source.",
    invoke_without_command=True,
)

BY_CHOICES = ("day", "model", "agent", "session", "job", "source", "run")


@app.callback()
def usage(
    ctx: typer.Context,
    by: str = typer.Option(None, "--by", help=f"Group by one of: {', '.join(BY_CHOICES)}."),
    since: str = typer.Option(
        None, "--since", help="Only calls since a span ago (7d, 24h, 2w) or a date (2026-01-31)."
    ),
    agent: str = typer.Option(None, "--agent", "-a", help="Only this agent's calls."),
    job: str = typer.Option(None, "--job", help="Only the calls of this automation job's runs (its id)."),
    session: str = typer.Option(None, "--session", help="Only this session's calls (a session key)."),
    json_out: bool = JsonOption,
    wide: bool = WideOption,
) -> None:
    """Totals over the usage ledger (all calls, unless --since or --agent narrow it)."""
    if ctx.invoked_subcommand is not None:
        return
    from claw.cli.common import print_json
    from claw.cli.gateway_call import call_gateway
    from claw.errors import UsageError

    if by is not None and by not in BY_CHOICES:
        raise UsageError(f"--by {by!r}: use one of {', '.join(BY_CHOICES)}")
    params: dict[str, Any] = {"by": by, "since": since, "agentId": agent, "jobId": job, "sessionKey": session}
    report = call_gateway("usage.summary", **{k: v for k, v in params.items() if v is not None})
    if json_out:
        print_json(report)
        return
    render(report, by, wide=wide)


def render(report: dict[str, Any], by: str | None, *, wide: bool = False) -> None:
    from claw.cli.table import Column, print_table
    from claw.usage.prices import format_cost

    total = report["total"]
    if not total["calls"]:
        print("No model calls recorded" + (" in that period." if report.get("since") else " yet."))
        return
    columns = [
        Column(by or "", flex=True, floor=12),
        Column("calls", right=True),
        Column("input", right=True),
        Column("cached", right=True),
        Column("output", right=True),
        Column("cost", right=True),
    ]

    def cells(row: dict[str, Any], key: str | None) -> list[object]:
        return [
            key,
            f"{row['calls']:,}",
            f"{row['inputTokens']:,}",
            f"{row['cachedInputTokens']:,}",
            f"{row['outputTokens']:,}",
            format_cost(row["cost"], row["unpricedCalls"]),
        ]

    body = [cells(g, g["key"]) for g in report["groups"]] if by else []
    print_table(columns, [*body, cells(total, "total")], wide=wide)
    notes = []
    if total["estimatedCalls"]:
        notes.append(f"{total['estimatedCalls']:,} call(s) reported no usage: their tokens are estimated")
    if total["unpricedCalls"]:
        notes.append('+ / —: calls with no known price; set [models.prices."provider/model"] in config.toml')
    notes.append(
        f"costs priced now: config's prices, else local servers free, else list prices of {report['pricesTaken']}"
    )
    for notice in report.get("notices") or ():
        notes.append(f"budget notice ({notice['period']}): {notice['message']}")
    for note in notes:
        print(note)


@app.command("prune")
def prune(
    before: str = typer.Option(..., "--before", help="Delete the rows of calls made before this date (YYYY-MM-DD)."),
    json_out: bool = JsonOption,
) -> None:
    """Delete old rows from the ledger (calls before local midnight of DATE)."""
    from claw.cli.common import print_json
    from claw.cli.gateway_call import call_gateway

    result = call_gateway("usage.prune", before=before)
    if json_out:
        print_json(result)
    else:
        print(f"Deleted {result['deleted']:,} usage row(s) of calls before {before}.")
