"""Slash commands: handled by the gateway itself, never sent to the model.

A command is a message whose first word is `/name` (an optional `:` may follow the name; see
`command_syntax`). A name that neither a command nor a capability's fallback (a skill's `/<name>`)
takes is answered with an error naming the nearest name, not sent to the model: a mistyped `/stauts`
would otherwise reach it as a question, and the docs (docs/cli.md) promise that slash commands never do.
A message that starts with a path (`/usr/bin/foo is missing`) is not a command, and goes to the model.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from claw.errors import ClawError, UsageError
from claw.gateway import hook_points
from claw.gateway.command_call import (
    Command,
    CommandCall,
    CommandFailed,
    Fallback,
    Handler,
    NotACommand,
    RunInstead,
    StopListener,
)

if TYPE_CHECKING:
    from claw.gateway.queueing import QueuePolicy
    from claw.gateway.runs import RunRegistry
    from claw.store.sessions import SessionEntry


class CommandHost(hook_points.HookHost, Protocol):
    """What the core's own commands (`/new`, `/stop`, `/status`, `/queue`, `/help`) use of the gateway."""

    runs: RunRegistry
    commands: CommandTable

    def abort_session(self, session_key: str) -> int: ...

    async def reset_session(self, session_key: str) -> SessionEntry: ...

    async def session_status(self, agent_id: str, session_key: str) -> dict[str, Any]: ...

    def queue_policy(self, agent_id: str, session_key: str, channel: str) -> QueuePolicy: ...


__all__ = ["Command", "CommandCall", "CommandFailed", "CommandHost", "CommandTable", "Fallback", "Handler",
           "NotACommand", "RunInstead", "StopListener"]  # fmt: skip


ABORT_SETTLE_SECONDS = 5.0
"""How long /new waits for stopped runs to write their partial replies before it archives the transcript."""


async def _new(gw: CommandHost, call: CommandCall) -> str:
    running = gw.runs.active(call.session_key)
    stopped = gw.abort_session(call.session_key)
    for run in running:  # let each aborted run record itself in the old transcript before it is archived
        await run.wait(ABORT_SETTLE_SECONDS)
    previous = gw.sessions(call.agent_id).get(call.session_key)
    entry = await gw.reset_session(call.session_key)
    said = await hook_points.command(gw, call, previous=previous, current=entry)  # command:new / command:reset
    note = f" (stopped {stopped} run{'s' if stopped != 1 else ''})" if stopped else ""
    return "\n".join([f"New session started for {call.session_key} (id {entry.session_id[:8]}){note}.", *said])


async def _stop(gw: CommandHost, call: CommandCall) -> str:
    listeners = gw.commands.stop_listeners
    stopped = gw.abort_session(call.session_key) + sum(stop(gw, call.session_key) for stop in listeners)
    said = await hook_points.command(gw, call, current=gw.sessions(call.agent_id).get(call.session_key))
    reply = f"Stopped {stopped} run{'s' if stopped != 1 else ''}." if stopped else "Nothing is running."
    return "\n".join([reply, *said])


async def _status(gw: CommandHost, call: CommandCall) -> str:
    s = await gw.session_status(call.agent_id, call.session_key)
    return (
        f"Session {s['sessionKey']} (id {s['sessionId'][:8] if s['sessionId'] else '—'}) · agent {call.agent_id}\n"
        f"Model: {s['model'] or 'not configured'}\n"
        f"Messages: {s['messages']} · tokens in {s['inputTokens']} / out {s['outputTokens']}\n"
        f"State: {s['state']}" + (f" ({s['queued']} queued)" if s["queued"] else "")
    )


async def _queue(gw: CommandHost, call: CommandCall) -> str:
    from claw.gateway.queueing import configured_policy, parse_queue_args

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


async def _help(gw: CommandHost, call: CommandCall) -> str:
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

    async def run(self, gw: CommandHost, call: CommandCall) -> str | RunInstead | CommandFailed:
        """The command's reply, a `RunInstead` (a normal run, reworded), or `CommandFailed`: a name that no
        command and no fallback takes, or a command (or fallback) that raised a `ClawError`."""
        try:
            found = self._commands.get(call.name)
            if found is not None:
                return await found.handler(gw, call)
            near: list[str] = []
            for fallback in self.fallbacks:
                answer = await fallback(gw, call)
                if isinstance(answer, NotACommand):
                    near += answer.names
                elif answer is not None:
                    return answer
        except ClawError as exc:  # a command used wrongly answers with the reason, flagged as an error
            return CommandFailed(exc.message, "usage" if isinstance(exc, UsageError) else "failed")
        return CommandFailed(unknown_command(call.name, [*self._commands, *near]), "unknown-command")


def unknown_command(name: str, known: Iterable[str]) -> str:
    """`unknown command /stauts (did you mean /status?) — /help lists them`: the nearest known name by
    `difflib`'s ratio, when one is near enough (its default cutoff, 0.6: `/stat` finds `/status`, `/bogus`
    finds nothing)."""
    nearest = difflib.get_close_matches(name, sorted(set(known)), n=1)
    hint = f" (did you mean /{nearest[0]}?)" if nearest else ""
    return f"unknown command /{name}{hint} — /help lists them"
