"""`claw system event TEXT`: a system event into an agent's main session, which runs a turn there at once
(the `wake` method: OpenClaw's `openclaw system event` does the same against claw)."""

from __future__ import annotations

from typing import Any

import typer

from claw.cli.common import JsonOption

app = typer.Typer(help="Tell an agent's main session that something happened (a system event).", no_args_is_help=True)

EVENT_WAIT_SECONDS = 3600.0


@app.command("event")
def event(
    text: str = typer.Argument(..., help='What happened, e.g. "the nightly backup finished".'),
    agent_id: str = typer.Option("main", "--agent", "-a", help="The agent whose main session hears it."),
    no_wait: bool = typer.Option(False, "--no-wait", help="Return once queued (needs a running gateway)."),
    json_out: bool = JsonOption,
) -> None:
    """Put TEXT into the agent's main session as a system event; the agent takes a turn on it there.

    Prints the agent's reply (exit 1 if the turn failed). Through a running gateway, `--no-wait` returns as
    soon as the event is queued; without one, the turn runs in this process and is always waited for."""
    import asyncio

    from claw.cli.common import load
    from claw.errors import UsageError

    if not text.strip():
        raise UsageError("the event text is empty")
    load(agent_id)
    result = asyncio.run(_wake(text, agent_id, wait=not no_wait))
    if json_out:
        from claw.cli.common import print_json

        print_json(result)
    elif "status" not in result:
        typer.echo(f"Queued in agent:{agent_id}:main (run {result.get('runId', '-')}).")
    elif result["status"] == "ok":
        typer.echo(result.get("text") or "")
    else:
        typer.echo(f"claw: the turn on the event ended {result['status']}: {result.get('error') or ''}", err=True)
    if result.get("status") not in (None, "ok"):
        raise typer.Exit(1)


async def _wake(text: str, agent_id: str, *, wait: bool) -> dict[str, Any]:
    from claw.cli.gateway_call import running_gateway_url

    url = running_gateway_url()
    client = await _remote(url) if url is not None else _local()
    try:
        queued = await client.call("wake", text=text, agentId=agent_id, mode="now")
        run_id = queued.get("runId")
        if run_id is None or (not wait and url is not None):
            return queued
        return await client.call("agent.wait", runId=run_id, timeoutMs=int(EVENT_WAIT_SECONDS * 1000))
    finally:
        await client.close()


async def _remote(url: str) -> Any:
    from claw.client.remote import RemoteClient
    from claw.errors import ConfigError
    from claw.paths import Paths
    from claw.server.auth import TOKEN_ENV, resolve_token

    token, _ = resolve_token(Paths.from_env())
    if token is None:
        raise ConfigError(f"no gateway token to connect with: set {TOKEN_ENV} or run `claw init`")
    return await RemoteClient.connect(url, token, call_timeout=EVENT_WAIT_SECONDS + 30)


def _local() -> Any:
    from claw.cli.common import load
    from claw.client.local import LocalClient
    from claw.compose import build_gateway

    paths, config = load()
    return LocalClient(build_gateway(paths, config))
