"""Drive one turn through a gateway client and render its events for a terminal or a script."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from claw.cli.subagent_wait import wait_for_subagents
from claw.cli.terminal_renderer import TerminalRenderer
from claw.tools.base import ApprovalRequest, Decision
from claw.vocab.run_event import NO_MODEL, CumulativeText, Phase

if TYPE_CHECKING:  # heavy; a turn through a running gateway (RemoteClient) never loads them
    from claw.client.protocol import GatewayClient, RunHandle
    from claw.config import Config
    from claw.paths import Paths

CONFIG_ERROR = "config-error"
"""Not a phase: an `error` that says no model is configured, which a script may want to tell apart."""
EXIT_CODES = {Phase.END: 0, Phase.ERROR: 1, CONFIG_ERROR: 2, Phase.ABORTED: 130}
COMMAND_ERROR_EXIT_CODES = {"unknown-command": 2, "usage": 2}
"""A slash command's error (`RunHandle.error`) as an exit code: 2 for a name or arguments the user got
wrong, like any usage error; 1 for a command that failed (`failed`)."""


async def ask_on_terminal(request: ApprovalRequest) -> Decision:
    """Ask on the terminal, saying why the policy asks (the reason says when "always" covers only this command)."""
    why = f"why: {request.reason}\n" if request.reason else ""
    choices = "[o]nce / [a]lways / [N]o" if request.allow_always else "[o]nce / [N]o"  # only what can work
    prompt = f"\nexec wants to run:\n  {request.command}\nin {request.cwd}\n{why}Allow? {choices}: "
    from claw.cli.terminal_renderer import approval_waited

    asked_at = time.monotonic()
    try:
        answer = await asyncio.to_thread(_read_answer, prompt)
    finally:
        approval_waited(time.monotonic() - asked_at)  # the call's time is shown without the wait
    offered = {"o": "allow-once", "a": "allow-always"} if request.allow_always else {"o": "allow-once"}
    return offered.get(answer[:1].lower(), "deny")  # type: ignore[return-value]


def _read_answer(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    return line.strip()


async def run_one_turn(
    paths: Paths,
    config: Config,
    message: str,
    *,
    agent_id: str,
    session: str | None,
    model: str | None,
    json_out: bool,
) -> int:
    """Run `message` as one turn in an in-process gateway; return the process exit code."""
    from claw.client.local import LocalClient
    from claw.compose import build_gateway
    from claw.mcp.capability import McpCapability

    gateway = build_gateway(paths, config)
    gateway.capability(McpCapability).dont_wait_for_servers()  # one turn: never wait for a server not used
    client = LocalClient(gateway)
    if wants_terminal_approvals(json_out):
        gateway.approvals.set_approver(ask_on_terminal)
    try:
        return await drive_turn(client, message, agent_id=agent_id, session=session, model=model, json_out=json_out)
    finally:
        await client.close()


def wants_terminal_approvals(json_out: bool) -> bool:
    """Exec approvals are asked on the terminal only when a person is there to answer."""
    return sys.stdin.isatty() and not json_out


async def drive_turn(
    client: GatewayClient,
    message: str,
    *,
    agent_id: str,
    session: str | None,
    model: str | None,
    json_out: bool,
) -> int:
    """Send `message` through any `GatewayClient` (in-process or remote), render the run; return the exit code."""
    handle = await client.run(message, agent_id=agent_id, session_key=session, model=model)
    if handle.run_id is None:
        return _show_answer(handle, json_out)
    code, spawned = await _follow(client, handle.run_id, json_out)
    if code == EXIT_CODES[Phase.ABORTED] or not spawned:  # no child: nothing to wait for
        return code
    interrupted = await wait_for_subagents(client, handle.run_id, json_out)  # and their announcements
    return interrupted if interrupted is not None else code


def _show_answer(handle: RunHandle, json_out: bool) -> int:
    """A message that started no run: a command's reply (stdout, exit 0) or its error (one `claw:` line on
    stderr, exit 2 or 1: `COMMAND_ERROR_EXIT_CODES`); return the exit code."""
    if json_out:
        import json

        answer = {"status": handle.status, "sessionKey": handle.session_key, "reply": handle.reply}
        print(json.dumps(answer if handle.error is None else {**answer, "error": handle.error}))
    elif handle.error is not None:
        print(f"claw: {handle.reply}", file=sys.stderr)
    elif handle.reply:
        print(handle.reply)
    return 0 if handle.error is None else COMMAND_ERROR_EXIT_CODES.get(handle.error, 1)


async def _follow(client: GatewayClient, run_id: str, json_out: bool) -> tuple[int, bool]:
    """Render run `run_id` to its end: its exit code, and whether it started a subagent."""
    loop = asyncio.get_running_loop()
    interrupts = 0
    aborting: list[asyncio.Future[Any]] = []

    def on_sigint() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts > 1:
            raise SystemExit(130)
        aborting.append(asyncio.ensure_future(client.call("agent.abort", runId=run_id)))

    loop.add_signal_handler(signal.SIGINT, on_sigint)
    renderer = TerminalRenderer()
    cumulative = CumulativeText()  # `--json` lines are the protocol's agent events, `text` included
    phase: str = Phase.ERROR
    spawned = False
    try:
        async for event in client.events(run_id):
            spawned = spawned or event.phase == Phase.SUBAGENT
            if json_out:
                sys.stdout.write(cumulative.json(event) + "\n")
                sys.stdout.flush()
            else:
                renderer.handle(event)
            if event.is_terminal:
                phase = str(event.phase)
                if event.data.get("code") == NO_MODEL:
                    phase = CONFIG_ERROR
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return EXIT_CODES.get(phase, 1), spawned
