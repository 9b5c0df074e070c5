"""`claw outbox ls [--dead]|retry ID`: replies on their way to a channel, and the ones that did not make it."""

from __future__ import annotations

import typer

from claw.cli.common import JsonOption, WideOption, listing

app = typer.Typer(help="Replies waiting to be delivered to channels; retry a dead or uncertain one.",
                  no_args_is_help=True)  # fmt: skip


@listing(app)
def ls(
    dead: bool = typer.Option(False, "--dead", help="Only dead letters (given up after the last attempt)."),
    limit: int = typer.Option(100, "--limit", min=1, max=10_000, help="At most this many, newest last."),
    json_out: bool = JsonOption,
    wide: bool = WideOption,
) -> None:
    """Replies not sent yet: queued, sending, unknown_after_send (may have arrived; not resent) and dead."""
    from claw.cli.common import print_json
    from claw.cli.gateway_call import call_gateway

    rows = call_gateway("outbox.list", dead=dead, limit=limit)
    if json_out:
        print_json(rows)
    elif not rows:
        print("No dead letters." if dead else "The outbox is empty: every reply has been delivered.")
    else:
        from claw.cli.channels_view import outbox_table

        outbox_table(rows, wide=wide)


@app.command("retry")
def retry(
    entry_id: int = typer.Argument(..., help="The entry's id, as `claw outbox ls` shows it."),
    json_out: bool = JsonOption,
) -> None:
    """Send a dead or unknown_after_send reply again, from its first unsent part."""
    from claw.cli.common import print_json
    from claw.cli.gateway_call import call_gateway

    row = call_gateway("outbox.retry", id=entry_id)
    if json_out:
        print_json(row)
        return
    where = "now" if row["delivering"] else "when the gateway next runs (`claw gateway run`)"
    part = f"part {row['partsSent'] + 1} of {row['parts']}"
    print(f"Outbox entry {row['id']} queued again from {part}; it goes out {where}.")
