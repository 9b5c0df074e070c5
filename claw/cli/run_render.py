"""Drive one turn through a gateway client and render its events for a terminal or a script."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from claw.gateway.run_event import RunEvent
from claw.tools.base import ApprovalRequest, Decision

if TYPE_CHECKING:  # heavy; a turn through a running gateway (RemoteClient) never loads them
    from claw.client.protocol import GatewayClient
    from claw.config import Config
    from claw.paths import Paths

EXIT_CODES = {"end": 0, "error": 1, "config-error": 2, "aborted": 130}


class TerminalRenderer:
    """Reply text to stdout as it streams; tool calls, failovers and errors to stderr."""

    def __init__(self) -> None:
        self._mid_line = False
        self._tool_started: dict[str, float] = {}

    def handle(self, event: RunEvent) -> None:
        data = event.data
        if event.stream == "assistant":
            text = data.get("delta", "")
            sys.stdout.write(text)
            sys.stdout.flush()
            if text:
                self._mid_line = not text.endswith("\n")
        elif event.stream == "tool":
            self._tool(data)
        elif event.phase == "failover":
            self._note(f"! {data['from']} failed ({data['reason']}); trying {data['to']}")
        elif event.phase == "compaction" and data.get("state") == "end":
            self._note(f"(context compacted: ~{data['tokensBefore']:,} → ~{data['tokensAfter']:,} tokens)")
        elif event.phase == "error":
            self._note(f"claw: error: {data.get('message')}")
        elif event.phase == "aborted":
            self._note("(aborted)")
        elif event.phase == "end":
            self._newline()

    def _tool(self, data: dict[str, Any]) -> None:
        call_id = data.get("toolCallId", "")
        if data.get("phase") == "start":
            self._tool_started[call_id] = time.perf_counter()
            self._note(f"→ {data['name']} {_summary(data.get('args'))}")
            return
        elapsed = (time.perf_counter() - self._tool_started.pop(call_id, time.perf_counter())) * 1000
        mark = "✗" if data.get("isError") else "✓"
        first = (data.get("result") or "").strip().splitlines()[:1]
        detail = f": {first[0][:160]}" if data.get("isError") and first else ""
        self._note(f"{mark} {data['name']} ({elapsed:.0f} ms){detail}")

    def _newline(self) -> None:
        if self._mid_line:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self._mid_line = False

    def _note(self, line: str) -> None:
        self._newline()
        print(line, file=sys.stderr, flush=True)


def _summary(args: Any, limit: int = 100) -> str:
    if isinstance(args, dict):
        text = " ".join(f"{k}={v!r}" if not isinstance(v, str) or len(v) < 60 else f"{k}=…" for k, v in args.items())
    else:
        text = str(args)
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def ask_on_terminal(request: ApprovalRequest) -> Decision:
    prompt = f"\nexec wants to run:\n  {request.command}\nin {request.cwd}\nAllow? [o]nce / [a]lways / [N]o: "
    answer = await asyncio.to_thread(_read_answer, prompt)
    return {"o": "allow-once", "a": "allow-always"}.get(answer[:1].lower(), "deny")  # type: ignore[return-value]


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
    from claw.gateway.gateway import Gateway

    gateway = Gateway(paths, config)
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
        if json_out:
            import json

            print(json.dumps({"status": handle.status, "sessionKey": handle.session_key, "reply": handle.reply}))
        elif handle.reply:
            print(handle.reply)
        return 0
    code = await _follow(client, handle.run_id, json_out)
    if code == EXIT_CODES["aborted"]:
        return code
    from claw.cli.subagent_wait import wait_for_subagents

    interrupted = await wait_for_subagents(client, handle.run_id, json_out)  # and their announcements
    return interrupted if interrupted is not None else code


async def _follow(client: GatewayClient, run_id: str, json_out: bool) -> int:
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
    phase = "error"
    try:
        async for event in client.events(run_id):
            if json_out:
                sys.stdout.write(event.to_json() + "\n")
                sys.stdout.flush()
            else:
                renderer.handle(event)
            if event.is_terminal:
                phase = event.data["phase"]
                if event.data.get("code") == "no_model":
                    phase = "config-error"
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return EXIT_CODES.get(phase, 1)
