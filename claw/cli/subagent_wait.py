"""A one-shot turn stays for its subagents: `claw agent -m` waits until every child its turn spawned has
ended and been announced, and shows each announcement turn (the parent reporting) as it runs.

It asks the gateway (`subagents.wait`, in-process or remote) in slices; each new announcement turn
is followed like the first run. Ctrl-C stops the waiting (exit 130); a running gateway keeps the
children going and announces them in the session as usual.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import TYPE_CHECKING, Any

from claw.cli.terminal_renderer import TerminalRenderer
from claw.errors import ClawError, GatewayUnavailable
from claw.vocab.run_event import CumulativeText

if TYPE_CHECKING:
    from claw.client.protocol import GatewayClient

WAIT_SLICE_MS = 15_000  # well under a remote client's call timeout


async def wait_for_subagents(client: GatewayClient, run_id: str, json_out: bool) -> int | None:
    """Wait for run `run_id`'s subagents and their announcements; 130 if interrupted, else None."""
    loop = asyncio.get_running_loop()
    waiting = asyncio.ensure_future(_follow_tree(client, run_id, json_out))
    loop.add_signal_handler(signal.SIGINT, waiting.cancel)
    try:
        await waiting
    except asyncio.CancelledError:
        if not waiting.cancelled():  # we were cancelled from outside, not by Ctrl-C
            raise
        print("claw: stopped waiting for subagents", file=sys.stderr, flush=True)
        return 130
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return None


async def _follow_tree(client: GatewayClient, run_id: str, json_out: bool) -> None:
    known: list[str] = []
    told = False
    slice_ms = 0  # first a look without waiting, so the note below comes before the wait
    while True:
        try:
            state = await client.call("subagents.wait", parentRunId=run_id, timeoutMs=slice_ms, known=known)
        except GatewayUnavailable as exc:  # the gateway is going away; it reports the children when back
            if not json_out:
                print(f"claw: stopped waiting for subagents: {exc.message}", file=sys.stderr, flush=True)
            return
        except ClawError as exc:
            if "unknown method" in exc.message:  # a gateway without subagents: nothing to wait for
                return
            raise
        slice_ms = WAIT_SLICE_MS
        children: list[dict[str, Any]] = state["children"]
        fresh = [a for a in state["announceRunIds"] if a not in known]
        if not fresh and state["status"] == "settled":
            return
        if not fresh and not told and not json_out:
            running = sum(1 for c in children if c["status"] in ("queued", "running"))
            _note(f"(waiting for {running} subagent{'s' if running != 1 else ''}…)")
            told = True
        for announce_id in fresh:
            known.append(announce_id)
            child = next((c for c in children if c.get("announceRunId") == announce_id), None)
            if child is not None and not json_out:
                _note(f'(subagent "{child.get("label") or _short(child["task"])}" {child["status"]}; reporting)')
            renderer = TerminalRenderer()
            cumulative = CumulativeText()
            async for event in client.events(announce_id):
                if json_out:
                    sys.stdout.write(cumulative.json(event) + "\n")
                    sys.stdout.flush()
                else:
                    renderer.handle(event)


def _short(task: str, limit: int = 50) -> str:
    flat = " ".join(task.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _note(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
