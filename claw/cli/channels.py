"""`claw channels ls|status`: the configured channel accounts and how they are doing."""

from __future__ import annotations

import typer

from claw.cli.common import JsonOption, WideOption, listing

app = typer.Typer(
    help="Channel accounts (webhook hooks, Telegram, Discord, Feishu and DingTalk bots) and their health.",
    no_args_is_help=True,
)


@listing(app)
def ls(json_out: bool = JsonOption, wide: bool = WideOption) -> None:
    """Every configured account: channel, account, mode and access policy."""
    from claw.cli.common import print_json
    from claw.cli.gateway_call import call_gateway

    accounts = call_gateway("channels.list")
    if json_out:
        print_json(accounts)
    elif not accounts:
        print(
            "No channels configured. Add [channels.webhook.hooks.<name>], [channels.telegram], [channels.discord],"
            " [channels.feishu], [channels.dingtalk] or [channels.slack] to config.toml (docs/channels/ has a page"
            " for each)."
        )
    else:
        from claw.cli.channels_view import accounts_table

        accounts_table(accounts, wide=wide)


@app.command("status")
def status(json_out: bool = JsonOption) -> None:
    """Each account's health: state, last poll, last error, inbox backlog and replies waiting in the outbox."""
    from claw.cli.common import print_json
    from claw.cli.gateway_call import call_gateway

    report = call_gateway("channels.status")
    if json_out:
        print_json(report)
    elif not report["accounts"]:
        print("No channels configured.")
    else:
        from claw.cli.channels_view import status_lines

        status_lines(report)
