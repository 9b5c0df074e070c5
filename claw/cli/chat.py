"""`claw chat`: the Textual console — on a running gateway (`--url`, or the local one when
`claw gateway run` is up), else on an in-process gateway with its services."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from claw.cli.common import AgentOption

if TYPE_CHECKING:
    from claw.client.protocol import GatewayClient
    from claw.paths import Paths
    from claw.tui.app import Connect
    from claw.tui.approvals import ApprovalSource


def chat(
    agent_id: str = AgentOption,
    session: str | None = typer.Option(
        None, "--session", "-s", help="Session key to open (default: the agent's main session)."
    ),
    url: str | None = typer.Option(
        None, "--url", help="A running gateway, e.g. ws://127.0.0.1:18789/ (default: the local one, if running)."
    ),
    model: str | None = typer.Option(
        None, "--model", help="Model ref for the session the console opens (stored with it, as /model does)."
    ),
    theme: str | None = typer.Option(
        None, "--theme", envvar="CLAW_THEME", help="dark, light, or any Textual theme name."
    ),
    resume_latest: bool = typer.Option(False, "--continue", "-c", help="Open the agent's most recent session."),
    resume: bool = typer.Option(False, "--resume", "-r", help="Pick the session to open first (search included)."),
) -> None:
    """Open the console: streaming conversation, tool cards, sessions, workspace editor, approvals."""
    import asyncio

    from claw.paths import Paths, check_agent_id
    from claw.server.runtime_file import read_runtime
    from claw.tui.logging_setup import log_to_file
    from claw.tui.themes import check_theme
    from claw.vocab.session_keys import normalize_session_key

    check_agent_id(agent_id)
    check_theme(theme)
    if sum((session is not None, resume_latest, resume)) > 1:
        from claw.errors import UsageError

        raise UsageError("use one of --session, --continue and --resume")
    if resume_latest:
        from claw.cli.sessions_pick import continued_session_key

        session = continued_session_key(agent_id, url)
    elif resume:
        from claw.cli.sessions_pick import pick_session_first

        session = pick_session_first(agent_id, url)
        if session is None:
            return  # the picker was closed without a choice
    if session is not None:
        session = normalize_session_key(session, agent_id)
    paths = Paths.from_env()
    log_to_file(paths.logs_dir / "tui.log")
    options = {"agent_id": agent_id, "session_key": session, "model": model, "theme": theme}
    running = read_runtime(paths) if url is None else None
    target = url or (running.url if running is not None else None)
    if target is not None and asyncio.run(_run_remote(paths, target, explicit=url is not None, **options)):
        return
    asyncio.run(_run_local(**options))


async def _run_remote(paths: Paths, url: str, *, explicit: bool, **options: str | None) -> bool:
    """Run the console on the gateway at `url`; False when a discovered gateway is not listening."""
    from claw.client.remote import GatewayNotListening, RemoteClient
    from claw.errors import ConfigError
    from claw.server.auth import TOKEN_ENV, resolve_token
    from claw.tui.approvals import RemoteApprovals

    token, _source = resolve_token(paths)
    if token is None:
        raise ConfigError(f"no gateway token to connect with: set {TOKEN_ENV} or run `claw init`")
    approvals = RemoteApprovals()
    try:
        client = await RemoteClient.connect(
            url, token, approver=approvals, channel="tui", open_timeout=5.0 if explicit else 2.0
        )
    except GatewayNotListening:
        if explicit:
            raise
        return False  # a stale gateway.json: nothing listens there, run in-process instead
    await _run_app(client, approvals, options)
    return True


async def _run_local(**options: str | None) -> None:
    """The console on an in-process gateway; with its services (automations fire while it is open)
    when this process can own them, i.e. no other claw process on the state dir runs them already.

    The gateway is built and started once the first frame is on screen (`make_app(connect=…)`):
    its imports, extensions and services take longer than drawing the console."""
    from claw.paths import Paths
    from claw.server.runtime_file import StateLock

    lock = StateLock(Paths.from_env())
    owner = lock.try_acquire("claw chat")
    notice = None if owner else f"no automations or channels here: {lock.holder()} runs them"

    async def connect() -> tuple[GatewayClient, ApprovalSource]:
        from claw.cli.common import load
        from claw.client.local import LocalClient
        from claw.compose import build_gateway
        from claw.gateway.gateway import Gateway
        from claw.tui.approvals import BrokerApprovals

        paths, config = load(options["agent_id"])
        from claw.mcp.capability import McpCapability

        gateway = build_gateway(paths, config, services=Gateway.capability_services if owner else ())
        gateway.capability(McpCapability).dont_wait_for_servers()  # the first reply never waits for a server
        await gateway.start()
        return LocalClient(gateway, channel="tui"), BrokerApprovals(gateway.approvals)

    try:
        await _run_app(None, None, options, connect=connect, services_notice=notice)
    finally:
        lock.release()


async def _run_app(
    client: GatewayClient | None,
    approvals: ApprovalSource | None,
    options: dict[str, str | None],
    *,
    connect: Connect | None = None,
    services_notice: str | None = None,
) -> None:
    from claw.tui.app import make_app
    from claw.tui.typeahead import take_typed_ahead

    typed = take_typed_ahead()  # kept for the prompt: Textual would read an Enter typed before now as Ctrl+J
    try:
        app = make_app(
            client,
            connect=connect,
            services_notice=services_notice,
            agent_id=options["agent_id"] or "main",
            session_key=options["session_key"],
            model=options["model"],
            approvals=approvals,
            theme=options["theme"],
            typed_ahead=typed.text,
        )
        try:
            await app.run_async()
        finally:
            if app.client is not None:
                await app.client.close()
    finally:
        typed.restore()  # the terminal as it was, whatever happened
    if app.connect_error is not None:
        raise app.connect_error
