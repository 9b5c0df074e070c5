"""Slash commands: handled by the gateway itself, never sent to the model.

A command is a standalone message starting with `/` (an optional `:` may follow
the name). Unknown commands are ordinary text for the model, as in OpenClaw.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from claw.errors import ClawError
from claw.gateway import hook_points
from claw.gateway.capability import Command

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway


@dataclass(frozen=True, slots=True)
class CommandCall:
    """A parsed slash command, with where it came from."""

    name: str
    args: str
    agent_id: str
    session_key: str
    channel: str = "cli"
    sender_id: str = "local"


@dataclass(frozen=True, slots=True)
class RunInstead:
    """A command's answer that starts a normal run, the model seeing `message` (e.g. `/skill name args`)."""

    message: str


Handler = Callable[["Gateway", CommandCall], Awaitable["str | RunInstead"]]
Fallback = Callable[["Gateway", CommandCall], Awaitable["str | RunInstead | None"]]
"""Asked in order about a `/name` that is not a command (e.g. `/<skill>`); None means "not mine"."""
StopListener = Callable[["Gateway", str], int]
"""Called by /stop with the session key; each stops what it owns there (e.g. the session's subagents)
and returns how many runs it stopped."""


ABORT_SETTLE_SECONDS = 5.0
"""How long /new waits for stopped runs to write their partial replies before it archives the transcript."""


async def _new(gw: Gateway, call: CommandCall) -> str:
    running = gw.runs.active(call.session_key)
    stopped = gw.abort_session(call.session_key)
    for run in running:  # let each aborted run record itself in the old transcript before it is archived
        await run.wait(ABORT_SETTLE_SECONDS)
    previous = gw.sessions(call.agent_id).get(call.session_key)
    entry = await gw.reset_session(call.session_key)
    said = await hook_points.command(gw, call, previous=previous, current=entry)  # command:new / command:reset
    note = f" (stopped {stopped} run{'s' if stopped != 1 else ''})" if stopped else ""
    return "\n".join([f"New session started for {call.session_key} (id {entry.session_id[:8]}){note}.", *said])


async def _stop(gw: Gateway, call: CommandCall) -> str:
    listeners = gw.commands.stop_listeners
    stopped = gw.abort_session(call.session_key) + sum(stop(gw, call.session_key) for stop in listeners)
    said = await hook_points.command(gw, call, current=gw.sessions(call.agent_id).get(call.session_key))
    reply = f"Stopped {stopped} run{'s' if stopped != 1 else ''}." if stopped else "Nothing is running."
    return "\n".join([reply, *said])


async def _status(gw: Gateway, call: CommandCall) -> str:
    s = await gw.session_status(call.agent_id, call.session_key)
    return (
        f"Session {s['sessionKey']} (id {s['sessionId'][:8] if s['sessionId'] else '—'}) · agent {call.agent_id}\n"
        f"Model: {s['model'] or 'not configured'}\n"
        f"Messages: {s['messages']} · tokens in {s['inputTokens']} / out {s['outputTokens']}\n"
        f"State: {s['state']}" + (f" ({s['queued']} queued)" if s["queued"] else "")
    )


async def _queue(gw: Gateway, call: CommandCall) -> str:
    from claw.gateway.queueing import QueuePolicy, configured_policy, parse_queue_args

    store = gw.sessions(call.agent_id)
    entry = store.get(call.session_key) or store.get_or_create(call.session_key)
    current = gw.queue_policy(call.agent_id, call.session_key, entry.channel)
    active = gw.runs.active(call.session_key)
    waiting = sum(1 for r in active if r.started_at is None)
    if not call.args:
        source = "this session" if entry.extra.get("queue") else "config"
        return f"Queue: {current.describe()} [{source}] · {len(active) - waiting} running, {waiting} waiting"
    if call.args.strip().lower() in ("reset", "default"):
        store.merge_extra(call.session_key, {"queue": None})
        return f"Queue back to {configured_policy(gw.config, entry.channel).describe()}."
    policy: QueuePolicy = parse_queue_args(call.args, current)
    store.merge_extra(call.session_key, {"queue": policy.to_wire()})
    return f"Queue for this session: {policy.describe()}."


async def _help(gw: Gateway, call: CommandCall) -> str:
    lines = ["Commands:"]
    lines += [f"  /{c.name:<8} {c.description}" for c in gw.commands.listing()]
    return "\n".join(lines)


CORE_COMMANDS: tuple[Command, ...] = (
    Command("new", "start a new session (the old transcript is archived)", _new),
    Command("reset", "same as /new", _new),
    Command("stop", "abort the running turn and anything queued for this session", _stop),
    Command("status", "session, model, message and token counts, run state", _status),
    Command("queue", "show or set what messages do while busy: /queue steer|followup|collect|interrupt", _queue),
    Command("help", "this list", _help),
)


class CommandTable:
    """One gateway's slash commands: the core's, then each capability's (`Gateway.use` adds them)."""

    def __init__(self, commands: tuple[Command, ...] = CORE_COMMANDS) -> None:
        self._commands: dict[str, Command] = {}
        self.fallbacks: list[Fallback] = []
        self.stop_listeners: list[StopListener] = []
        self.add(*commands)

    def add(self, *commands: Command) -> None:
        for command in commands:
            self._commands[command.name] = command

    def get(self, name: str) -> Command | None:
        return self._commands.get(name)

    def listing(self) -> list[Command]:
        """Every command, by name."""
        return sorted(self._commands.values(), key=lambda c: c.name)

    async def run(self, gw: Gateway, call: CommandCall) -> str | RunInstead | None:
        """The command's reply, a `RunInstead`, or None if `call.name` is not a command (the text goes to
        the model)."""
        found = self._commands.get(call.name)
        if found is None:
            for fallback in self.fallbacks:
                answer = await fallback(gw, call)
                if answer is not None:
                    return answer
            return None
        try:
            return await found.handler(gw, call)
        except ClawError as exc:  # a command used wrongly answers with the reason, like any other reply
            return exc.message
