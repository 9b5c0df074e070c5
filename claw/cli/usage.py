"""`claw usage [--by day|model|agent|session|job|source|run] [--since 7d] [--json]`, `claw usage prune --before DATE`.

`--by run --job ID` gives each run of an automation job its tokens and cost.

The numbers come from the gateway's `usage.*` methods (the running gateway's, else an in-process
one's), so the CLI, the console's `/cost` and remote clients agree. Costs are priced now, from the
stored tokens: a price changed in config changes every view, rows are never rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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
    job: str = typer.Option(None, "--job", help="Only the calls of this automation job's runs (its name or id)."),
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


def with_costs(rows: Iterable[dict[str, Any]], agent_id: str) -> Iterator[dict[str, Any]]:
    """`sessions.list` rows with each session's `cost` (priced now; None when no call of it has a known
    price) and `unpricedCalls`, from `usage.summary` by session: the core's rows know nothing of usage.
    A session's cost is its key's: a reset session keeps the key, so its earlier calls count too.
    Lazy, as the rows come; the ledger is read once there is a first row."""
    groups: dict[str, dict[str, Any]] | None = None
    for row in rows:
        if groups is None:
            from claw.cli.gateway_call import call_gateway

            report = call_gateway("usage.summary", by="session", agentId=agent_id)
            groups = {g["key"]: g for g in report["groups"]}
        group = groups.get(row["key"])
        cost = None if group is None else group["cost"]
        yield {**row, "cost": cost, "unpricedCalls": 0 if group is None else group["unpricedCalls"]}


def cost_cell(row: dict[str, Any]) -> str:
    """A session row's cost as a table shows it: `$0.0123`, `—` when unknown, `+` when partly unpriced."""
    from claw.usage.prices import format_cost

    return format_cost(row.get("cost"), row.get("unpricedCalls") or 0)


def with_run_usage(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`automations.runs` rows with each run's `inputTokens`, `outputTokens`, `calls`, `cost` and
    `unpricedCalls` from the ledger (`usage.summary` by run of the job); a run with no model call
    (skipped, refused) has no tokens and no cost (None)."""
    jobs = {run["jobId"] for run in runs if run.get("runId")}
    if not jobs:
        return [{**run, **_NO_USAGE} for run in runs]
    from claw.cli.gateway_call import call_gateway

    groups: dict[str, dict[str, Any]] = {}
    for job_id in sorted(jobs):
        report = call_gateway("usage.summary", by="run", jobId=job_id)
        groups.update({g["key"]: g for g in report["groups"] if g["key"]})
    out = []
    for run in runs:
        group = groups.get(run.get("runId") or "")
        if group is None:
            out.append({**run, **_NO_USAGE})
            continue
        spent = {"calls": group["calls"], "inputTokens": group["inputTokens"], "outputTokens": group["outputTokens"]}
        out.append({**run, **spent, "cost": group["cost"], "unpricedCalls": group["unpricedCalls"]})
    return out


_NO_USAGE: dict[str, Any] = {"calls": 0, "inputTokens": None, "outputTokens": None, "cost": None, "unpricedCalls": 0}


def tokens_cell(row: dict[str, Any]) -> str:
    """Input plus output tokens, `1,234`; `—` when the row had no model call."""
    if row.get("inputTokens") is None:
        return "—"
    return f"{row['inputTokens'] + row['outputTokens']:,}"
