"""`/think [off|low|high|default]`: how much the session's model should reason, offered as `ThinkCapability`.

The level is the session's own setting, kept in its entry's `extra` (`think`), beside `/queue`'s; every
model call of the session's later runs sends it in the way its server takes it
(claw/providers/reasoning_switch.py). `/think` alone says the level and what it sends. A server with no
switch claw knows is told as such, and the level is not set: it would do nothing there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from claw.errors import ClawError, UsageError
from claw.gateway.capability import BaseCapability, Command
from claw.providers.reasoning_switch import LEVELS, Switch, ThinkLevel, request_fields, switch_for, think_level

if TYPE_CHECKING:
    from claw.agent.env import AgentEnv
    from claw.agent.runner import AgentRunner
    from claw.gateway.commands import CommandCall
    from claw.providers.failover import ModelRouter
    from claw.store.sessions import SessionStore


class ThinkHost(Protocol):
    """What setting a session's level uses of the gateway (`/think` and `sessions.patch` alike)."""

    runner: AgentRunner
    router: ModelRouter

    def sessions(self, agent_id: str) -> SessionStore: ...

    def agent_env(self, agent_id: str) -> AgentEnv: ...


USAGE = "/think takes off, low, high or default (or nothing, to show the current level)"


def _switch(gw: ThinkHost, agent_id: str, override: str | None) -> tuple[str, Switch]:
    """The session's model's provider and that provider's reasoning switch."""
    chain = gw.runner.model_chain(gw.agent_env(agent_id), override)
    if not chain:
        raise ClawError("no model configured: /think has nothing to set the reasoning of")
    provider = gw.router.resolve(chain[0]).provider
    return provider, switch_for(provider, gw.router.provider_settings(provider))


def _sends(switch: Switch, level: ThinkLevel) -> str:
    fields = request_fields(switch, level)
    if not fields:
        return "sends no reasoning field (the model's default)"
    return "sends " + ", ".join(f"{name}={json.dumps(value)}" for name, value in fields.items())


def _no_switch(provider: str) -> str:
    return (
        f"provider {provider} has no reasoning switch claw knows, so /think cannot change how much it reasons; "
        f"if its server takes one, set reasoningSwitch under [providers.{provider}] "
        "(effort, openrouter, ollama or template)"
    )


async def _think(gw: ThinkHost, call: CommandCall) -> str:
    wanted = call.args.strip()
    if wanted:
        return set_think(gw, call.agent_id, call.session_key, wanted)
    entry = gw.sessions(call.agent_id).get(call.session_key)
    provider, switch = _switch(gw, call.agent_id, entry.model_override if entry else None)
    current = think_level(entry.extra.get("think")) if entry else None
    if switch == "none":
        return f"Thinking: the model's default; {_no_switch(provider)}."
    if current is None:
        return f"Thinking: the model's default (not set for this session; {provider} takes /think off|low|high)."
    return f"Thinking: {current} [this session] · {provider} {_sends(switch, current)}."


def set_think(gw: ThinkHost, agent_id: str, session_key: str, wanted: str) -> str:
    """Set the session's level to `wanted` (a level, or `default`), as `/think <wanted>` and OpenClaw's
    `sessions.patch {thinkingLevel}` do; the line that says what it sends now."""
    store = gw.sessions(agent_id)
    entry = store.get(session_key) or store.get_or_create(session_key)
    if wanted.strip().lower() in ("default", "reset"):
        store.merge_extra(session_key, {"think": None})
        return "Thinking back to the model's default: no reasoning switch is sent."
    level = think_level(wanted.strip().lower())
    if level is None:
        raise UsageError(f"{USAGE}, not {wanted.strip()!r}")
    provider, switch = _switch(gw, agent_id, entry.model_override)
    if switch == "none":
        raise ClawError(f"thinking not set: {_no_switch(provider)}")
    store.merge_extra(session_key, {"think": level})
    return f"Thinking for this session: {level} · {provider} {_sends(switch, level)}."


class ThinkCapability(BaseCapability):
    """`/think`: the session's reasoning level, for every client and channel."""

    name = "think"

    def commands(self) -> Sequence[Command]:
        return (Command("think", f"how much the model reasons: /think {'|'.join(LEVELS)}|default", _think),)
