"""`HookRegistry`: which hooks each agent has, which are enabled, and which run for an event.

It is the `HookSource` the hooks capability attaches to the gateway's hook bus: for each event it
hands the bus one handler per enabled hook, which imports and calls the hook's handler.py
(`claw.hooks.invoke`).

Enabled, by `[hooks.entries.<name>]`: `enabled = true|false` decides; unset, a managed hook
($CLAW_HOME/hooks, put there by the user) runs while bundled and workspace hooks wait to be
enabled. A workspace hook is code in a folder the agent itself can write to, so it never runs
until the user enables it. `claw hooks enable` also records which copy it enabled (`source`):
a copy from another location that later shadows it stays off until enabled in its turn.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from claw.config import load_config
from claw.errors import ClawError
from claw.gateway.hook_bus import HookHandler
from claw.gateway.hook_events import HookEvent
from claw.hooks.discovery import Discovery, discover, hook_roots
from claw.hooks.hook import Hook
from claw.hooks.invoke import invoke
from claw.hooks.loader import HookLoadError, handler_digest
from claw.paths import Paths
from claw.settings.hooks import HooksSettings

log = logging.getLogger(__name__)

DEFAULT_AGENT = "main"


@dataclass(frozen=True, slots=True)
class HookState:
    """A hook and whether it runs, with the reason."""

    hook: Hook
    enabled: bool
    reason: str


def hook_state(hook: Hook, settings: HooksSettings) -> HookState:
    if not settings.enabled:
        return HookState(hook, False, "every hook is off (hooks.enabled = false)")
    entry = settings.entries.get(hook.name)
    if entry is None or entry.enabled is None:
        if hook.source == "managed":
            return HookState(hook, True, "managed hooks run unless disabled")
        return HookState(hook, False, f"{hook.source} hooks wait until enabled: claw hooks enable {hook.name}")
    if not entry.enabled:
        return HookState(hook, False, "disabled in config")
    if entry.source is not None and entry.source != hook.source:
        return HookState(
            hook,
            False,
            f"enabled for the {entry.source} copy; this {hook.source} copy shadows it: claw hooks enable {hook.name}",
        )
    return HookState(hook, True, "enabled in config")


class HookRegistry:
    """Discovery per agent (re-run for each event: a few stats, manifests cached) plus the settings."""

    def __init__(self, paths: Paths, settings: HooksSettings, workspace_for: Callable[[str], Path]) -> None:
        self._paths = paths
        self._workspace_for = workspace_for
        self.settings = settings

    @property
    def timeout_seconds(self) -> float:
        return self.settings.timeout_seconds

    def reload_settings(self) -> None:
        """Take `[hooks]` from config.toml again (after `claw hooks enable|disable`)."""
        try:
            self.settings = load_config(self._paths).hooks
        except ClawError as exc:
            log.warning("hook settings not reloaded: %s", exc.message)

    def discover(self, agent_id: str = DEFAULT_AGENT) -> Discovery:
        return discover(hook_roots(self._paths, self._workspace_for(agent_id)))

    def states(self, agent_id: str = DEFAULT_AGENT) -> list[HookState]:
        return [hook_state(h, self.settings) for h in self.discover(agent_id).hooks]

    def matching(self, event: HookEvent) -> list[Hook]:
        """The enabled hooks for `event`, in run order; gateway-wide events use the main agent's workspace."""
        agent_id = getattr(event, "agent_id", None) or DEFAULT_AGENT
        return [
            _pinned(s.hook, self.settings) for s in self.states(agent_id) if s.enabled and s.hook.handles(event.name)
        ]

    def handlers(self, event: HookEvent) -> list[HookHandler]:
        """`HookSource`: one handler per hook `matching` the event, in the same order."""
        return [partial(self.run_hook, hook) for hook in self.matching(event)]

    async def run_hook(self, hook: Hook, event: HookEvent) -> bool:
        """Run `hook` on `event` under the timeout in force now; True if it returned in time without raising."""
        return await invoke(hook, event, self.timeout_seconds)

    def rows(self, agent_id: str = DEFAULT_AGENT) -> list[dict[str, Any]]:
        """`claw hooks ls` rows: every hook found, with shadowed and invalid copies last."""
        found = self.discover(agent_id)
        rows = [_state_row(s, self.settings) for s in self.states(agent_id)]
        rows.sort(key=lambda r: r["name"])
        for shadow in found.shadowed:
            reason = f"shadowed by the {shadow.winner.source} hook at {shadow.winner.directory}"
            rows.append(_row(shadow.hook, False, "shadowed", reason))
        for bad in found.invalid:
            rows.append(
                {
                    "name": bad.name,
                    "description": "",
                    "events": [],
                    "source": bad.source,
                    "enabled": False,
                    "status": "invalid",
                    "reason": bad.reason,
                    "path": str(bad.directory),
                }
            )
        return rows


def _state_row(state: HookState, settings: HooksSettings) -> dict[str, Any]:
    """The row of a found hook; an enabled workspace hook whose handler.py no longer matches its pin is `changed`."""
    if not state.enabled:
        return _row(state.hook, False, "disabled", state.reason)
    hook = _pinned(state.hook, settings)
    if hook.pinned is not None:
        try:
            digest = handler_digest(hook)
        except HookLoadError as exc:
            return _row(hook, True, "changed", str(exc))
        if digest != hook.pinned:
            reason = (
                f"{hook.handler_file} changed since it was enabled, so the changed code does not run; "
                f"read it, then `claw hooks enable {hook.name}`"
            )
            return _row(hook, True, "changed", reason)
    return _row(hook, True, "enabled", state.reason)


def _pinned(hook: Hook, settings: HooksSettings) -> Hook:
    """`hook` with the handler.py hash it was enabled with, when it is a workspace hook (`claw.hooks.loader`)."""
    entry = settings.entries.get(hook.name)
    if hook.source != "workspace" or entry is None or entry.sha256 is None:
        return hook
    return replace(hook, pinned=entry.sha256)


def _row(hook: Hook, enabled: bool, status: str, reason: str) -> dict[str, Any]:
    return {
        "name": hook.name,
        "description": hook.description,
        "events": list(hook.events),
        "source": hook.source,
        "enabled": enabled,
        "status": status,
        "reason": reason,
        "path": str(hook.directory),
    }
