"""`BootstrapHooks`: the runner's bootstrap filter that fires `agent:bootstrap` once per run.

Hooks get the files as a mutable list of (name, content); what they leave there is turned
back into bootstrap files. A file they did not touch keeps its record; a new or changed one
is cut to the per-file cap, and the whole to the total cap, as the loader does.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claw.agent.bootstrap import MIN_REMAINING_CHARS, BootstrapFile, trim_bootstrap
from claw.gateway.hook_events import AgentBootstrap

if TYPE_CHECKING:
    from claw.agent.env import AgentEnv
    from claw.agent.run_request import RunRequest
    from claw.gateway.hook_bus import HookBus

log = logging.getLogger(__name__)


class BootstrapHooks:
    """The hooks capability's bootstrap filter: fires `agent:bootstrap` on the gateway's hook bus."""

    def __init__(self, bus: HookBus, state_dir: Path) -> None:
        self._bus = bus
        self._state_dir = state_dir

    async def __call__(self, run: RunRequest, env: AgentEnv, files: list[BootstrapFile]) -> list[BootstrapFile]:
        event = AgentBootstrap(
            state_dir=self._state_dir,
            session_key=run.session_key,
            agent_id=env.agent_id,
            run_id=run.id,
            workspace=env.workspace,
            channel=run.ctx.channel,
            files=[(f.name, f.content) for f in files],
        )
        done = await self._bus.fire(event)
        if done is event:  # no hook ran, or none succeeded
            return files
        return rebuild(files, done.files, env)


def rebuild(original: list[BootstrapFile], pairs: list[Any], env: AgentEnv) -> list[BootstrapFile]:
    """Bootstrap files from the (name, content) pairs hooks left, within the configured caps."""
    known = {(f.name, f.content): f for f in original}
    out: list[BootstrapFile] = []
    remaining = env.settings.bootstrap_total_max_chars
    for pair in pairs:
        if not (isinstance(pair, tuple | list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            log.warning("agent:bootstrap: ignoring %r, not a (name, content) pair of strings", pair)
            continue
        name, content = pair[0].strip(), pair[1]
        if not name or not content.strip() or remaining < MIN_REMAINING_CHARS:
            continue
        same = known.get((name, content))
        if same is not None and len(same.content) <= remaining:
            out.append(same)
        else:
            cut = trim_bootstrap(name, content, min(env.settings.bootstrap_max_chars, remaining))
            out.append(BootstrapFile(name, env.workspace / name, len(content.rstrip()), cut))
        remaining -= len(out[-1].content)
    return out
