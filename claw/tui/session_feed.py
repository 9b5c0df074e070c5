"""`SessionFeed`: the console follows the session on screen live, whoever sends into it.

Once a session is shown, the screen reads the gateway's session subscription (`session_events`, with
`others`) in a worker of its own. A run of this session that the console did not start — a `claw agent`
through the same gateway, a channel message routed here, an automation in the main session — is shown as
it happens through a `RunView` that the `RunFollower` holds: its origin, its message, the streamed reply,
its tool cards. The console's own runs come along too and are skipped (`RunFollower.is_own`; a message on
its way to the gateway is waited for, since its run can be announced before its id is known). A subagent's
report turn is left to `SubagentWatch`, which opens it with its own line.

Of the other sessions only the outline arrives (accepted, then how it ended): an automation run that
failed there becomes an error line and a toast, as one failing in this session becomes its error line and a
toast. When the subscription breaks, the console says so once; a gateway without it leaves the console as
it was, following only its own runs.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Protocol

from claw.errors import ClawError, UsageError
from claw.tui.chat_host import ChatSession
from claw.tui.run_view import Panes, RunView
from claw.vocab.run_event import Phase, RunEvent
from claw.vocab.subscription import SubscriberOverflow

if TYPE_CHECKING:
    from claw.tui.widgets.conversation.conversation import Conversation

log = logging.getLogger(__name__)

CRON_CHANNEL = "cron"
"""The channel automation runs come from (`claw.automations.executor.CRON_CHANNEL`; not imported: a capability)."""
KEEP_AUTOMATION_RUNS = 256


class _Runs(Protocol):
    @property
    def panes(self) -> Panes: ...

    def is_own(self, run_id: str) -> bool: ...

    async def settled(self) -> None: ...

    def follow_foreign(self, view: RunView) -> None: ...

    async def apply_foreign(self, event: RunEvent) -> None: ...


class FeedHost(ChatSession, Protocol):
    """What the feed uses of the chat screen: the conversation, the follower, a toast, the sidebar."""

    conversation: Conversation

    @property
    def follower(self) -> _Runs: ...

    def notify(
        self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None
    ) -> None: ...

    def refresh_sidebar(self) -> object: ...


class SessionFeed:
    """Reads the session subscription for `follow(session_key)`; the screen runs it in an exclusive worker."""

    def __init__(self, host: FeedHost) -> None:
        self.host = host
        self._automations: OrderedDict[str, str] = OrderedDict()
        """Automation runs seen being accepted: run id → the job's name."""

    async def follow(self, session_key: str, shown_runs: frozenset[str] = frozenset()) -> None:
        """Until cancelled (the screen shows another session): show `session_key`'s foreign runs.
        `shown_runs`: runs whose message the history just loaded shows already (under way meanwhile)."""
        host = self.host
        try:
            async for event in host.api.session_events(session_key, others=True):
                if event.session_key == session_key:
                    await self._mine(event, shown_runs)
                if event.data.get("phase") == Phase.ACCEPTED:
                    self._note_automation(event)
                elif event.is_terminal:
                    await self._ended(event, session_key)
        except UsageError as exc:  # an older gateway, without session subscriptions
            log.info("not following session %s live: %s", session_key, exc)
        except (SubscriberOverflow, ClawError) as exc:
            log.warning("stopped following session %s live: %s", session_key, exc)
            await host.conversation.add_notice(f"✗ stopped following this session live: {exc}", "error")

    async def _mine(self, event: RunEvent, shown_runs: frozenset[str]) -> None:
        """An event of the session on screen: a foreign run's start opens its view, its events go to it."""
        follower = self.host.follower
        data = event.data
        if data.get("phase") == Phase.ACCEPTED:
            await follower.settled()  # a message of ours still on its way: its run id comes with the answer
            if follower.is_own(event.run_id) or (data.get("systemEvent") and data.get("channel") != CRON_CHANNEL):
                return  # our own run, or a subagent's report (SubagentWatch shows it)
            follower.follow_foreign(_view(follower.panes, event, shown=event.run_id in shown_runs))
        await follower.apply_foreign(event)  # nothing for a run not shown this way

    def _note_automation(self, event: RunEvent) -> None:
        if event.data.get("channel") != CRON_CHANNEL:
            return
        self._automations[event.run_id] = str(event.data.get("sender") or "automation")
        while len(self._automations) > KEEP_AUTOMATION_RUNS:
            self._automations.popitem(last=False)

    async def _ended(self, event: RunEvent, session_key: str) -> None:
        """A run ended: an automation's failure is a toast (and a line, when the run was not on screen)."""
        name = self._automations.pop(event.run_id, None)
        if event.session_key != session_key:
            self.host.refresh_sidebar()  # another session changed (its preview, its counters)
        if name is None or event.data.get("phase") != Phase.ERROR:
            return
        text = f'automation "{name}" failed: {event.data.get("message")}'
        self.host.notify(text, title="automation failed", severity="error", timeout=10)
        if event.session_key != session_key:  # in this session its run's own error line says it
            await self.host.conversation.add_notice(f"✗ {text} (session {event.session_key})", "error")


def _view(panes: Panes, event: RunEvent, *, shown: bool) -> RunView:
    data = event.data
    message = str(data.get("message") or "")
    if data.get("systemEvent"):  # an automation of the main session: its message is the system note
        return RunView(panes, event.run_id, f'⏰ automation "{data.get("sender") or "?"}": {message}',
                       queued=False, system=True, shown=shown)  # fmt: skip
    sender = f" · {data['sender']}" if data.get("sender") else ""
    origin = f"sent from {data.get('channel') or 'another client'}{sender}"
    return RunView(panes, event.run_id, message, queued=False, origin=origin, shown=shown)
