"""The Subagent prompt section: a child learns what it is, who asked, and how its reply is used."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from claw.agent.sections import SectionRequest
from claw.subagents.policy import DEPTH_KEY, PARENT_KEY
from claw.vocab.session_keys import is_subagent_key

if TYPE_CHECKING:
    from claw.subagents.host import SubagentsHost

SUBAGENT_RULES = """## Subagent
You are a subagent: a separate run started by session {parent} to do one task (depth {depth}).
- Do the task in the message you were given; you cannot ask the user anything, so make reasonable \
assumptions and say which.
- Your final reply is stored and reported back to {parent} automatically: make it the complete result, \
self-contained and to the point. Nobody else reads your intermediate messages.
- Stay within the task; do not start unrelated work."""


class SubagentSection:
    """`PromptSectionSource` named "subagent": only for `agent:<id>:subagent:<uuid>` sessions."""

    name = "subagent"

    def __init__(self, host: SubagentsHost) -> None:
        self._host = weakref.ref(host)  # the gateway holds this section (in its runner): no cycle

    async def render(self, request: SectionRequest) -> str | None:
        host = self._host()
        if host is None or not is_subagent_key(request.session_key):
            return None
        entry = host.sessions(request.agent_id).get(request.session_key)
        extra = entry.extra if entry else {}
        parent = extra.get(PARENT_KEY) or "the requesting session"
        return SUBAGENT_RULES.format(parent=parent, depth=extra.get(DEPTH_KEY, 1))
