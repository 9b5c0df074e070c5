"""The skills list a session uses, recorded in the session index and refreshed when skills change.

The snapshot is kept in the session entry's `extra["skillsSnapshot"]`. Its fingerprint
covers every SKILL.md on disk (name, mtime, size) and every input to gating (config,
the agent's list, channel and sender, PATH, which env vars are set, the platform), so
adding, editing or removing a skill — or changing what makes one eligible — takes a
new snapshot on the next turn, while an unchanged session keeps exactly what it had.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from claw.skills.gating import GateContext
from claw.skills.prompt import PromptEntry, PromptList

SNAPSHOT_KEY = "skillsSnapshot"


@dataclass(frozen=True, slots=True)
class SkillsSnapshot:
    """What one session's prompt lists, and the fingerprint it was taken under."""

    fingerprint: str
    version: int
    taken_at: str
    listing: PromptList

    def to_json(self) -> dict[str, Any]:
        return {
            "fingerprint": self.fingerprint,
            "version": self.version,
            "takenAt": self.taken_at,
            "total": self.listing.total,
            "descriptions": self.listing.descriptions,
            "skills": [
                {"name": e.name, "description": e.description, "location": e.location} for e in self.listing.entries
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> SkillsSnapshot | None:
        """The snapshot stored in a session entry, or None if there is none (or it is unreadable)."""
        if not isinstance(data, Mapping):
            return None
        try:
            entries = tuple(
                PromptEntry(str(s["name"]), str(s.get("description", "")), str(s["location"])) for s in data["skills"]
            )
            listing = PromptList(entries, int(data["total"]), str(data.get("descriptions", "full")))
            return cls(str(data["fingerprint"]), int(data["version"]), str(data["takenAt"]), listing)
        except (KeyError, TypeError, ValueError):
            return None


def fingerprint(discovery_stamp: str, ctx: GateContext) -> str:
    """A digest of everything that decides the list: the files on disk and the gating inputs."""
    inputs = {
        "files": discovery_stamp,
        "agent": ctx.agent_id,
        "agentSkills": ctx.agent_skills,
        "settings": ctx.settings.model_dump(mode="json"),
        "channel": ctx.channel,
        "sender": ctx.sender_id,
        "path": ctx.environ.get("PATH", ""),
        "env": sorted(name for name, value in ctx.environ.items() if value),
        "platform": ctx.platform,
    }
    raw = json.dumps(inputs, sort_keys=True, default=str).encode()
    return hashlib.blake2b(raw, digest_size=16).hexdigest()
