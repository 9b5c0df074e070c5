"""The Skills prompt section: the session's snapshot of eligible skills, as `<available_skills>`."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from claw.agent.sections import SectionRequest
from claw.skills.catalog import discover_for, gate, gate_context
from claw.skills.discovery import Discovery
from claw.skills.gating import GateContext
from claw.skills.prompt import candidates, fit, render
from claw.skills.snapshot import SNAPSHOT_KEY, SkillsSnapshot, fingerprint
from claw.store.transcript import utc_now_iso

if TYPE_CHECKING:
    from claw.config import Config
    from claw.skills.host import SkillsHost
    from claw.store.sessions import SessionEntry

log = logging.getLogger(__name__)


class SkillsSection:
    """Renders the skills list for a turn, taking a new snapshot for the session only when skills changed."""

    name = "skills"

    def __init__(self, host: SkillsHost) -> None:
        self._host = host

    async def render(self, request: SectionRequest) -> str | None:
        # The usual turn finds the session's snapshot still current: a few stats and a comparison, done
        # here on the loop (a SKILL.md that changed is parsed here once, then cached). Gating and saving
        # a new snapshot go to a worker thread.
        snapshot = self._survey(request).current
        if snapshot is None:
            snapshot = await asyncio.to_thread(self.snapshot, request)
        return render(snapshot.listing)

    def snapshot(self, request: SectionRequest) -> SkillsSnapshot:
        """The session's current snapshot, retaken (and saved) if its fingerprint no longer matches."""
        survey = self._survey(request)
        if survey.current is not None:
            return survey.current
        found, previous, entry = survey.found, survey.previous, survey.entry
        for bad in found.invalid:  # said once per snapshot, not on every turn
            log.warning("skipped skill %s: %s", bad.path / "SKILL.md", bad.reason)
        limits = self._host.config.skills.limits
        report = gate(found, survey.ctx)
        listing = fit(
            candidates(report.eligible),
            max_count=limits.max_skills_in_prompt,
            max_chars=limits.max_skills_prompt_chars,
        )
        snapshot = SkillsSnapshot(survey.fingerprint, (previous.version + 1) if previous else 1, utc_now_iso(), listing)
        if entry is not None:
            log.info("skills snapshot v%d for %s: %d skills", snapshot.version, entry.session_key, len(listing.entries))
            try:
                self._host.sessions(request.agent_id).merge_extra(entry.session_key, {SNAPSHOT_KEY: snapshot.to_json()})
            except OSError as exc:  # the turn still gets its skills; the next one tries to record them again
                log.warning("could not record the skills snapshot of %s: %s", entry.session_key, exc)
        return snapshot

    def _survey(self, request: SectionRequest) -> _Survey:
        """The skills found now, the session's gate context, and its saved snapshot."""
        host = self._host
        found = discover_for(host.paths, host.config, request.workspace)
        ctx = run_gate_context(host.config, request)
        entry = host.sessions(request.agent_id).get(request.session_key)
        previous = SkillsSnapshot.from_json(entry.extra.get(SNAPSHOT_KEY)) if entry else None
        return _Survey(found, ctx, fingerprint(found.stamp, ctx), entry, previous)


def run_gate_context(config: Config, request: SectionRequest) -> GateContext:
    """The gate context of one run: its agent, channel and sender, and a subagent scope's narrowed skills."""
    ctx = gate_context(config, request.agent_id, request.channel, request.sender_id)
    if request.scope.skills is not None:  # a subagent given only some skills: narrow the agent's own list
        own = ctx.agent_skills
        ctx = replace(ctx, agent_skills=tuple(s for s in request.scope.skills if own is None or s in own))
    return ctx


@dataclass(frozen=True, slots=True)
class _Survey:
    found: Discovery
    ctx: GateContext
    fingerprint: str
    entry: SessionEntry | None
    previous: SkillsSnapshot | None

    @property
    def current(self) -> SkillsSnapshot | None:
        """The saved snapshot, if nothing that decides the list has changed since it was taken."""
        return self.previous if self.previous is not None and self.previous.fingerprint == self.fingerprint else None
