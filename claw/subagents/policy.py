"""The rules: who may spawn what, what a child may see and use, and which sessions the session tools reach.

Each check returns None when allowed, else the one-line reason the tool gives the model.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from claw.agent.run_scope import RunScope
from claw.config import AgentSettings
from claw.vocab.session_keys import agent_of

SESSION_TOOLS = ("sessions_spawn", "sessions_list", "sessions_history", "sessions_send")
MEMORY_TOOLS = ("memory_search", "memory_get")
SYSTEM_TOOLS = ("automations",)
DEPTH_KEY = "spawnDepth"
PARENT_KEY = "spawnedBy"
ALLOW_KEY = "agents.defaults.tools.sessions.allowAgents"
_NOT_FOR_SUBAGENTS = "subagent sessions cannot use it; report back in your final reply instead"


def depth_of(extra: dict[str, Any] | None) -> int:
    value = (extra or {}).get(DEPTH_KEY, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def spawn_refusal(depth: int, settings: AgentSettings) -> str | None:
    """Why a run in a session at `depth` (0: not a subagent) may not spawn, or None."""
    max_depth = settings.subagents.max_depth
    if max_depth == 0:
        return "spawning subagents is turned off for this agent (agents.defaults.subagents.maxDepth = 0)"
    if depth >= max_depth:
        return (
            f"a subagent cannot spawn subagents: this session is at depth {depth} and "
            f"agents.defaults.subagents.maxDepth is {max_depth}; do the work yourself"
        )
    return None


def agent_refusal(caller: str, target: str, allowed: Iterable[str], key: str) -> str | None:
    """Why `caller` may not act on agent `target` under the allow list at config `key`, or None."""
    names = tuple(allowed)
    if target == caller or "*" in names or target in names:
        return None
    return f"agent {target!r} is not allowed for agent {caller!r}; list it in {key} to allow it"


def child_scope(child_depth: int, settings: AgentSettings, skills: tuple[str, ...] | None) -> RunScope:
    """A child's limits: no session tools (a would-be orchestrator below maxDepth keeps spawn, list and
    history), no system tools, no memory unless `subagents.memory` grants it, and only `skills`."""
    denied: dict[str, str] = {}
    refusal = spawn_refusal(child_depth, settings)
    if refusal is not None:
        denied["sessions_spawn"] = refusal
        denied["sessions_list"] = denied["sessions_history"] = _NOT_FOR_SUBAGENTS
    denied["sessions_send"] = _NOT_FOR_SUBAGENTS
    for name in SYSTEM_TOOLS:
        denied[name] = _NOT_FOR_SUBAGENTS
    omit: frozenset[str] = frozenset()
    if not settings.subagents.memory:
        omit = frozenset({"memory"})
        for name in MEMORY_TOOLS:
            denied[name] = "subagents have no memory access (agents.defaults.subagents.memory = false)"
    return RunScope(skills=skills, omit_sections=omit, denied_tools=denied)


def skills_refusal(requested: tuple[str, ...], settings: AgentSettings) -> str | None:
    """Why a child may not be given `requested` skills (outside `subagents.skills`), or None."""
    allowed = settings.subagents.skills
    if allowed is None:
        return None
    outside = [s for s in requested if s not in allowed]
    if not outside:
        return None
    return f"skills {', '.join(outside)} are not allowed for subagents (agents.defaults.subagents.skills)"


def visibility_refusal(
    caller_key: str,
    target_key: str,
    settings: AgentSettings,
    authorized: bool,
    lineage: Iterable[str],
) -> str | None:
    """Why the session tools of `caller_key` may not reach `target_key`, or None.

    `lineage` is the target's chain of parents (`spawnedBy`, nearest first)."""
    rules = settings.tools.sessions
    caller_agent, target_agent = agent_of(caller_key), agent_of(target_key)
    refused = agent_refusal(caller_agent, target_agent, rules.allow_agents, ALLOW_KEY)
    if refused:
        return refused
    if rules.visibility == "agent" and authorized:
        return None
    if target_key == caller_key or caller_key in lineage:
        return None
    why = "the sender of this message is not authorised" if authorized is False else "visibility is `tree`"
    return f"{target_key} is not this session or one it spawned ({why})"
