"""`SubagentWatch`: keeps the conversation's subagent trees up to date, and brings in the report turns.

A tree is mounted under a turn when that turn's first `subagent` (spawned) event arrives. Each child's
own run is then followed for live status (and for the children it spawns, listed under it); while any
child has not settled, `subagents.list` is polled about once a second as well. The poll is what finds
the report turns: a child's announcement turn in this session is started by the gateway, not by the
console, so the screen's `RunFollower` is asked to follow it like a turn of its own. `stop` asks the
gateway to stop one child (the `x` key on its row).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from claw.errors import ClawError
from claw.tui.chat_host import WorkerHost
from claw.tui.subagent_info import ChildInfo
from claw.tui.widgets.conversation.tool_card import ToolCard
from claw.tui.widgets.subagents.subagent_tree import SubagentTree
from claw.vocab.run_event import Phase, RunEvent, State, Stream, ToolPhase

if TYPE_CHECKING:
    from textual.worker import Worker

    from claw.client.protocol import GatewayClient
    from claw.tui.widgets.conversation.conversation import Conversation

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
GROUP = "subagents"
_HEADLINES = {"ok": "finished", "error": "failed", "timeout": "timed out", "aborted": "was stopped"}


def report_notice(info: ChildInfo) -> str:
    """The line that opens a child's report turn in the conversation."""
    return f'↳ subagent "{info.name}" {_HEADLINES.get(info.status, info.status)}: reporting'


def _agent_of(session_key: str) -> str:
    parts = session_key.split(":", 2)
    return parts[1] if len(parts) == 3 and parts[0] == "agent" else ""


class _Reports(Protocol):
    def follow_report(self, run_id: str, notice: str) -> None: ...


class WatchHost(WorkerHost, Protocol):
    """What the watch uses of the chat screen: the session on screen, the conversation its trees go in,
    the `RunFollower` that follows report turns, and notices."""

    session_key: str
    conversation: Conversation

    @property
    def api(self) -> GatewayClient: ...

    @property
    def follower(self) -> _Reports: ...

    def notify(self, message: str, *, timeout: float) -> None: ...


class SubagentWatch:
    """The subagents of the session on screen. `observe` every event of a followed run; `reset` on a switch."""

    def __init__(self, host: WatchHost) -> None:
        self.host = host
        self.trees: dict[str, SubagentTree] = {}
        """By the run id of the turn whose children they list."""
        self.children: dict[str, ChildInfo] = {}
        self._tree_of: dict[str, str] = {}
        self._reports: set[str] = set()
        """Announcement runs already followed (or left to the history)."""
        self._poller: Worker[None] | None = None

    def reset(self) -> None:
        """Forget everything (the screen is about to show another session)."""
        self.host.cancel_workers(GROUP)
        self.trees.clear()
        self.children.clear()
        self._tree_of.clear()
        self._reports.clear()
        self._poller = None

    async def resume(self, rows: list[dict[str, Any]]) -> None:
        """Show the session's children that have not settled yet (`subagents.list` rows), in trees at the end."""
        key = self.host.session_key
        for row in rows:
            info = ChildInfo.from_row(row)
            if info.parent_session_key != key or info.settled:
                continue
            if info.announce_run_id:  # a report already under way is left to the history: never shown twice
                self._reports.add(info.announce_run_id)
            await self._merge(row)

    async def observe(self, event: RunEvent) -> None:
        """Note a spawn announced by `event` (from a turn, or from a child's own run)."""
        data = event.data
        if event.stream == Stream.TOOL and event.phase == ToolPhase.START:
            self._keep_below_cards(event.run_id)
            return
        about_child = event.stream == Stream.LIFECYCLE and event.phase == Phase.SUBAGENT
        if not about_child or data.get("state") != State.SPAWNED:
            return
        run_id = str(data.get("childRunId") or "")
        if not run_id or run_id in self.children:
            return
        key = str(data.get("childSessionKey") or "")
        info = ChildInfo(
            run_id=run_id,
            parent_run_id=event.run_id,
            parent_session_key=event.session_key,
            session_key=key,
            agent_id=_agent_of(key),
        )
        await self._add(info)

    def stop(self, run_id: str) -> None:
        """Stop one child; it ends as `aborted` and its parent session hears of it."""
        self.host.run_worker(self._stop(run_id), group="abort", name="stop_subagent", exit_on_error=False)

    async def _stop(self, run_id: str) -> None:
        reply = await self.host.api.call("subagents.abort", runId=run_id)
        if not reply.get("aborted"):
            self.host.notify("That subagent had already ended.", timeout=3)

    async def _add(self, info: ChildInfo) -> None:
        self.children[info.run_id] = info
        turn = self._tree_of.get(info.parent_run_id, info.parent_run_id)
        self._tree_of[info.run_id] = turn
        tree = self.trees.get(turn)
        if tree is None:
            tree = self.trees[turn] = SubagentTree(turn)
            await self.host.conversation.add(tree)
        await tree.show(info)
        if not info.finished:
            self.host.run_worker(
                self._follow(info.run_id), group=GROUP, name=f"subagent {info.run_id[:8]}", exit_on_error=False
            )
        if self._poller is None or self._poller.is_finished:
            self._poller = self.host.run_worker(self._poll(), group=GROUP, name="subagents poll", exit_on_error=False)

    def _keep_below_cards(self, run_id: str) -> None:
        """Keep a turn's tree after the tool cards of its round (the spawns of one round run one by one,
        so the tree appears after the first card; the cards after it move above it)."""
        tree = self.trees.get(run_id)
        if tree is None or not tree.is_mounted:
            return
        widgets = list(self.host.conversation.children)
        below = widgets[widgets.index(tree) + 1 :]
        if below and all(isinstance(widget, ToolCard) for widget in below):
            self.host.conversation.move_child(tree, after=below[-1])

    async def _update(self, info: ChildInfo) -> None:
        if self.children.get(info.run_id) == info:
            return
        self.children[info.run_id] = info
        tree = self.trees.get(self._tree_of.get(info.run_id, ""))
        if tree is not None:
            await tree.show(info)

    async def _follow(self, run_id: str) -> None:
        """The child's own events: its label, start and end, and the children it spawns."""
        try:
            async for event in self.host.api.events(run_id):
                info = self.children.get(run_id)
                if info is None:  # reset meanwhile
                    return
                await self._update(info.with_event(event))
                await self.observe(event)
        except ClawError as exc:  # the run is gone from the gateway (or the connection): the poll goes on
            log.info("not following subagent %s: %s", run_id, exc)

    async def _poll(self) -> None:
        """While any child has not settled: ask the gateway about each tree's children."""
        while any(not info.settled for info in self.children.values()):
            await asyncio.sleep(POLL_SECONDS)
            turns = {self._tree_of[run_id] for run_id, info in self.children.items() if not info.settled}
            for turn in turns:
                try:
                    rows = await self.host.api.call("subagents.list", parentRunId=turn)
                except ClawError as exc:
                    log.info("subagents.list failed: %s", exc)
                    continue
                for row in rows:
                    await self._merge(row)

    async def _merge(self, row: dict[str, Any]) -> None:
        known = self.children.get(str(row.get("runId")))
        info = known.with_row(row) if known else ChildInfo.from_row(row)
        if known is None:
            await self._add(info)
        else:
            await self._update(info)
        report = info.announce_run_id
        if report and report not in self._reports and info.parent_session_key == self.host.session_key:
            self._reports.add(report)
            self.host.follower.follow_report(report, report_notice(info))
