"""`claw agent -m TEXT`: one turn, streamed to the terminal (or as RunEvent JSON lines with --json).

The message can come from stdin too, as with most terminal tools: `-m -` reads it all, and so does
`claw agent` without -m when stdin is a pipe or a file (`echo hi | claw agent`, `claw agent < notes.md`)."""

from __future__ import annotations

import sys

import typer

from claw.cli.common import AgentOption, JsonOption


def agent(
    message: str | None = typer.Option(
        None, "--message", "-m", help="The message to send; - reads it from stdin (so does a pipe without -m)."
    ),
    agent_id: str = AgentOption,
    session: str | None = typer.Option(
        None, "--session", "-s", help="Session key (default: the agent's main session)."
    ),
    model: str | None = typer.Option(None, "--model", help="Model ref for this turn, e.g. openai/gpt-4o-mini."),
    resume_latest: bool = typer.Option(
        False, "--continue", "-c", help="Continue the agent's most recent session (instead of its main one)."
    ),
    json_out: bool = JsonOption,
    url: str | None = typer.Option(
        None, "--url", help="A running gateway to use, e.g. ws://127.0.0.1:18789/ (default: the local one, if running)."
    ),
) -> None:
    """Send one message to an agent and stream its reply; tool calls are shown as they happen.

    When a gateway is running (`claw gateway run`) the turn goes through it; otherwise
    an in-process gateway runs it."""
    import asyncio

    from claw.errors import NoModelError
    from claw.paths import Paths, check_agent_id

    message = _message(message)
    check_agent_id(agent_id)
    if resume_latest:
        from claw.errors import UsageError

        if session is not None:
            raise UsageError("--continue picks the session itself: drop --session, or drop --continue")
        from claw.cli.sessions_pick import continued_session_key

        session = continued_session_key(agent_id, url)
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
    from claw.vocab.command_syntax import parse_command

    paths, config = load(agent_id)
    if not (model or config.agent(agent_id).model.chain()) and parse_command(message) is None:
        raise NoModelError()  # a slash command needs no model (and `/usr/bin/x is missing` is no command)
    code = asyncio.run(
        run_one_turn(paths, config, message, agent_id=agent_id, session=session, model=model, json_out=json_out)
    )
    raise typer.Exit(code)


def _message(given: str | None) -> str:
    """The message to send: `given`, or stdin's whole text for `-m -` or for no -m with stdin not a terminal.
    Refused in one line (exit 2) when there is none: a terminal without -m, or an empty text."""
    from claw.errors import UsageError

    stdin = sys.stdin
    if given is not None and given != "-":
        if not given.strip():
            raise UsageError("the message is empty: pass the text with -m/--message")
        return given
    if given is None and (stdin is None or stdin.isatty()):
        raise UsageError("no message: pass it with -m TEXT, or pipe it in (echo hi | claw agent)")
    if stdin is None:  # `-m -` with no stdin at all (closed by whoever started us)
        raise UsageError("-m - reads the message from stdin, but there is no stdin: pass the text with -m TEXT")
    if stdin.isatty():
        print("(reading the message from stdin; end it with Ctrl-D)", file=sys.stderr)
    try:
        text = stdin.read()
    except UnicodeDecodeError as exc:
        raise UsageError(f"the message on stdin is not {stdin.encoding} text ({exc.reason})") from None
    if not text.strip():
        raise UsageError("the message read from stdin is empty: pipe some text in, or pass it with -m TEXT")
    return text.rstrip("\r\n")  # `echo hi |` sends "hi\n": the line's end is not part of the message
