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
) -> None:
    """Send one message to an agent and stream its reply; tool calls are shown as they happen."""
    import asyncio

    from claw.cli.common import load
    from claw.cli.run_render import run_one_turn
    from claw.errors import NoModelError, UsageError

    if not message.strip():
        raise UsageError("the message is empty: pass the text with -m/--message")
    paths, config = load(agent_id)
    if not (model or config.agent(agent_id).model.chain()) and not message.lstrip().startswith("/"):
        raise NoModelError()
    code = asyncio.run(
        run_one_turn(paths, config, message, agent_id=agent_id, session=session, model=model, json_out=json_out)
    )
    raise typer.Exit(code)
