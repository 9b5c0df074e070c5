"""`claw automations add|ls|next|run|runs|edit|enable|disable|rm`: jobs that run agent turns on a schedule
or on an event (a signed webhook, a Gmail push).

Every command is one gateway method (`automations.*`): through the running gateway
when there is one, else through a gateway started in this process (without its
scheduler — a job added here is picked up by a gateway that starts or runs later).
"""

from __future__ import annotations

from typing import Any

import typer

from claw.cli.common import JsonOption, WideOption, listing

app = typer.Typer(
    help="Schedule agent turns: cron expressions, intervals, one-shots, or events (webhooks, Gmail).",
    no_args_is_help=True,
)

IdArgument = typer.Argument(..., help="Automation id (or name), as `claw automations ls` shows it.")
RUN_CALL_TIMEOUT = 3600.0
"""How long `claw automations run` waits for a run through a running gateway."""
DEFAULT_CALL_TIMEOUT = 30.0

_TZ_HELP = "IANA time zone for the schedule, e.g. Europe/Paris (default: this host's zone)."
_COMMAND_HELP = "Run this command line (sh -c, in your home) instead of an agent turn; its output is the reply."
_ON_HELP = "Run on an event: webhook:NAME (a signed POST) or gmail:ADDRESS (a Gmail Pub/Sub push)."
_DELIVER_HELP = "Where the final reply goes: none, <channel>:<target> or webhook:<url>."


def _call(method: str, **params: Any) -> Any:
    from claw.cli.gateway_call import call_gateway

    # `run --wait` through a running gateway lasts as long as the turn does.
    timeout = RUN_CALL_TIMEOUT if method == "automations.run" and params.get("wait") else DEFAULT_CALL_TIMEOUT
    return call_gateway(method, timeout=timeout, **{k: v for k, v in params.items() if v is not None})


def _print_json(value: Any) -> None:
    from claw.cli.common import print_json

    print_json(value)


@app.command("add")
def add(
    schedule: str | None = typer.Argument(None, help='Cron expression, e.g. "0 9 * * *" (or use --every / --at).'),
    message: str | None = typer.Option(None, "--message", "-m", help="What the agent should do when the job fires."),
    command: str | None = typer.Option(None, "--command", help=_COMMAND_HELP),
    every: str | None = typer.Option(None, "--every", help="Run at this interval, e.g. 30m, 2h, 1d."),
    at: str | None = typer.Option(None, "--at", help="Run once: 2026-12-24T18:00 (in --tz) or a delay such as 20m."),
    on: str | None = typer.Option(None, "--on", help=_ON_HELP),
    name: str | None = typer.Option(None, "--name", help="A name to refer to the job by (default: from the message)."),
    tz: str | None = typer.Option(None, "--tz", help=_TZ_HELP),
    agent_id: str = typer.Option("main", "--agent", "-a", help="The agent that runs the job."),
    session: str = typer.Option("isolated", "--session", help="isolated (a fresh cron session) or main."),
    deliver: str = typer.Option("none", "--deliver", help=_DELIVER_HELP),
    disabled: bool = typer.Option(False, "--disabled", help="Store the job switched off."),
    json_out: bool = JsonOption,
) -> None:
    """Add a job; refused with one line (exit 2), nothing stored, if any part of it cannot be honoured.

    What it runs: an agent turn on --message, in a fresh session each time (--session isolated) or in the
    agent's main session as a system event (--session main); or, with --command, a command line of yours."""
    if (message is None) == (command is None):
        from claw.errors import UsageError

        raise UsageError("give what the job does: --message TEXT (an agent turn) or --command LINE, not both")
    job = _call(
        "automations.add",
        cron=schedule,
        every=every,
        at=at,
        on=on,
        message=message if command is None else command,
        name=name,
        tz=tz,
        agentId=agent_id,
        session=_session(session) if command is None else "command",
        deliver=deliver,
        enabled=not disabled,
    )
    if json_out:
        _print_json(job)
        return
    from claw.cli.automations_view import job_line, trigger_setup

    print(f"Added {job_line(job)}")
    trigger_setup(job)


@listing(app)
def ls(json_out: bool = JsonOption, wide: bool = WideOption) -> None:
    """Jobs: id, name, schedule (and in words), zone, next run in the job's zone, last status, target, enabled."""
    jobs = _call("automations.list")
    if json_out:
        _print_json(jobs)
        return
    if not jobs:
        print('No automations yet. Add one: claw automations add "0 9 * * *" -m "Give me my daily brief"')
        return
    from claw.cli.automations_view import jobs_table

    jobs_table(jobs, wide=wide)


@app.command("next")
def next_(
    job_id: str = IdArgument,
    count: int = typer.Option(5, "-n", "--count", min=1, max=100, help="How many firings to show."),
    json_out: bool = JsonOption,
) -> None:
    """The job's next firings, in its own zone and in UTC."""
    job = _call("automations.get", id=job_id, upcoming=count)
    if json_out:
        _print_json(job)
        return
    from claw.cli.automations_view import upcoming_lines

    upcoming_lines(job)


@app.command("run")
def run(
    job_id: str = IdArgument,
    no_wait: bool = typer.Option(False, "--no-wait", help="Start it and return at once (needs a running gateway)."),
    json_out: bool = JsonOption,
) -> None:
    """Run a job now, outside its schedule; prints the reply (exit 1 if the run failed)."""
    from claw.cli.gateway_call import running_gateway_url

    wait = not (no_wait and running_gateway_url() is not None)
    result = _call("automations.run", id=job_id, wait=wait)
    if json_out:
        _print_json(result)
    else:
        from claw.cli.automations_view import run_result

        run_result(result)
    if result["status"] == "error":
        raise typer.Exit(1)


@app.command("runs")
def runs(
    job_id: str = IdArgument,
    limit: int = typer.Option(20, "--limit", min=1, max=2000, help="At most this many, newest first."),
    json_out: bool = JsonOption,
    wide: bool = WideOption,
) -> None:
    """The job's run history: run id, start, end, status (ok|error|skipped), tokens, cost, trigger, error, output."""
    from claw.cli.usage import with_run_usage

    rows = with_run_usage(_call("automations.runs", id=job_id, limit=limit))
    if json_out:
        _print_json(rows)
        return
    if not rows:
        print(f"No runs of {job_id} yet (next: `claw automations next {job_id}`).")
        return
    from claw.cli.automations_view import runs_table

    runs_table(rows, wide=wide)


@app.command("edit")
def edit(
    job_id: str = IdArgument,
    cron: str | None = typer.Option(None, "--cron", help='A new cron expression, e.g. "30 8 * * 1-5".'),
    every: str | None = typer.Option(None, "--every", help="A new interval."),
    at: str | None = typer.Option(None, "--at", help="A new one-shot time."),
    on: str | None = typer.Option(None, "--on", help="A new event trigger (a new webhook gets a new secret)."),
    message: str | None = typer.Option(None, "--message", "-m"),
    name: str | None = typer.Option(None, "--name"),
    tz: str | None = typer.Option(None, "--tz", help=_TZ_HELP),
    agent_id: str | None = typer.Option(None, "--agent", "-a"),
    session: str | None = typer.Option(None, "--session", help="isolated or main."),
    deliver: str | None = typer.Option(None, "--deliver", help=_DELIVER_HELP),
    json_out: bool = JsonOption,
) -> None:
    """Change a job; a new schedule or zone replaces the old next run at once."""
    fields = {"cron": cron, "every": every, "at": at, "on": on, "message": message, "name": name, "tz": tz}
    fields |= {"agentId": agent_id, "session": _session(session) if session else None, "deliver": deliver}
    if all(value is None for value in fields.values()):
        from claw.errors import UsageError

        raise UsageError("nothing to change: give at least one of --cron --every --at -m --name --tz --agent ...")
    job = _call("automations.update", id=job_id, **fields)
    _show(job, "Updated", json_out)
    if not json_out:
        from claw.cli.automations_view import trigger_setup

        trigger_setup(job)


@app.command("enable")
def enable(job_id: str = IdArgument, json_out: bool = JsonOption) -> None:
    """Switch a job on; its next run is counted from now (slots missed while off are not run)."""
    _show(_call("automations.update", id=job_id, enabled=True), "Enabled", json_out)


@app.command("disable")
def disable(job_id: str = IdArgument, json_out: bool = JsonOption) -> None:
    """Switch a job off (a run in progress finishes)."""
    _show(_call("automations.update", id=job_id, enabled=False), "Disabled", json_out)


@app.command("rm")
def rm(job_id: str = IdArgument) -> None:
    """Remove a job (its run history is kept)."""
    result = _call("automations.remove", id=job_id)
    print(f"Removed automation {result['removed']} ({result['name']}).")


def _show(job: dict[str, Any], verb: str, json_out: bool) -> None:
    if json_out:
        _print_json(job)
        return
    from claw.cli.automations_view import job_line

    print(f"{verb} {job_line(job)}")


def _session(value: str) -> str:
    if value not in ("isolated", "main"):
        from claw.errors import UsageError

        raise UsageError(f"invalid --session {value!r}: use isolated or main")
    return value
