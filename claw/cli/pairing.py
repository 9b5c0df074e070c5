"""`claw pairing ls|approve`: who asked to talk to your agent, and letting them."""

from __future__ import annotations

import typer

from claw.cli.common import JsonOption, WideOption, listing
from claw.untrusted import shown

app = typer.Typer(help="Pairing codes sent to unknown senders; approve one to let its sender in.",
                  no_args_is_help=True)  # fmt: skip


@listing(app)
def ls(
    channel: str | None = typer.Argument(None, help="Only this channel (e.g. telegram)."),
    json_out: bool = JsonOption,
    wide: bool = WideOption,
) -> None:
    """Pending codes (sender, code, expiry) and the senders approved so far."""
    from claw.cli.common import print_json
    from claw.cli.gateway_call import call_gateway

    found = call_gateway("pairing.list", channel=channel.lower() if channel else None)
    if json_out:
        print_json(found)
        return
    from claw.cli.channels_view import approved_table, pending_table

    if found["pending"]:
        pending_table(found["pending"], wide=wide)
    else:
        print("No pending pairing requests.")
    if found["approved"]:
        print("\nApproved:")
        approved_table(found["approved"], wide=wide)


@app.command("approve")
def approve(
    channel: str = typer.Argument(..., help="The channel the code was sent on (e.g. telegram)."),
    code: str = typer.Argument(..., help="The 8-character code the sender received."),
    json_out: bool = JsonOption,
) -> None:
    """Approve the sender of a pending code: from now on their messages reach the agent."""
    from claw.cli.common import print_json
    from claw.cli.gateway_call import call_gateway

    request = call_gateway("pairing.approve", channel=channel.lower(), code=code)
    if json_out:
        print_json(request)
        return
    name = f" ({request['senderName']})" if request.get("senderName") else ""
    print(shown(f"Approved {request['channel']}/{request['accountId']} sender {request['senderId']}{name}."))
