"""`claw agent -m TEXT`: one turn, streamed to the terminal (or as RunEvent JSON lines with --json)."""

from __future__ import annotations

import typer

from claw.cli.common import AgentOption, JsonOption


def agent(
    message: str = typer.Option(..., "--message", "-m", help="The message to send."),
    agent_id: str = AgentOption,
    session: str | None = typer.Option(
        None, "--session", "-s", help="Session key (default: the agent's main session)."
    ),
    model: str | None = typer.Option(None, "--model", help="Model ref for this turn, e.g. openai/gpt-4o-mini."),
    json_out: bool = JsonOption,
    url: str | None = typer.Option(
        None, "--url", help="A running gateway to use, e.g. ws://127.0.0.1:18789/ (default: the local one, if running)."
    ),
) -> None:
    """Send one message to an agent and stream its reply; tool calls are shown as they happen.

    When a gateway is running (`claw gateway run`) the turn goes through it; otherwise
    an in-process gateway runs it."""
    import asyncio

    from claw.errors import NoModelError, UsageError
    from claw.paths import Paths, check_agent_id

    if not message.strip():
        raise UsageError("the message is empty: pass the text with -m/--message")
    check_agent_id(agent_id)
    from claw.cli.remote_turn import gateway_url, run_remote_turn

    here = Paths.from_env()
    target = gateway_url(here, url)
    if target is not None:
        turn = run_remote_turn(
            here, target, message, agent_id=agent_id, session=session, model=model, json_out=json_out,
            explicit=url is not None,
        )  # fmt: skip
        remote_code = asyncio.run(turn)
        if remote_code is not None:  # None: the runtime file was stale, nothing listens; run in-process
            raise typer.Exit(remote_code)

    from claw.cli.common import load
    from claw.cli.run_render import run_one_turn

    paths, config = load(agent_id)
    if not (model or config.agent(agent_id).model.chain()) and not message.lstrip().startswith("/"):
        raise NoModelError()
    code = asyncio.run(
        run_one_turn(paths, config, message, agent_id=agent_id, session=session, model=model, json_out=json_out)
    )
    raise typer.Exit(code)
