"""`SessionLoader`: what the chat screen asks the gateway when it connects, and when it shows a session.

On connecting it learns the agent's models and the slash commands the gateway answers, stores the
model `claw chat --model` named with the session it opens, then loads the session. Loading a session
forgets the old one's runs, subagents and live feed, shows the last `HISTORY_LIMIT` messages (a greeting when
there are none, the no-model panel when nothing could answer), the subagents still under way, the
token counters, the context gauge and the model, seeds the input history, and follows the session live
(`SessionFeed`: what other clients, channels and automations send into it).

The model and the gauge are the session's, as the gateway reports them: the model stored with the
session (`sessions.get`), and `sessions.context` — the numbers `/context` prints — for the model the
next turn starts on and the share of its window the prompt fills. So the status bar, `/status` and
`/context` agree, whichever session is on screen. A method an older gateway may lack falls back to a
default (`optional`). The screen runs each of these in its own exclusive worker, so a failure becomes
a notice in the conversation.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from claw.errors import ClawError
from claw.tui import slash
from claw.tui.chat_host import ChatSession, WorkerHost
from claw.tui.history_widgets import history_widgets, user_inputs
from claw.tui.session_model import effective_model
from claw.tui.widgets.conversation.no_model_panel import NoModelPanel
from claw.tui.widgets.conversation.notice import Notice

if TYPE_CHECKING:
    from claw.tui.widgets.conversation.conversation import Conversation
    from claw.tui.widgets.input.prompt_area import PromptArea
    from claw.tui.widgets.sessions.sessions_sidebar import SessionsSidebar
    from claw.tui.widgets.status.status_bar import StatusBar

log = logging.getLogger(__name__)

HISTORY_LIMIT = 200


class _Runs(Protocol):
    def reset(self) -> None: ...


class _Subagents(Protocol):
    def reset(self) -> None: ...

    async def resume(self, rows: list[dict[str, Any]]) -> None: ...


class LoaderHost(ChatSession, WorkerHost, Protocol):
    """What the loader uses of the chat screen: the panes it fills, the `RunFollower` and `SubagentWatch`
    it resets on a switch, and the screen's workers for loading a session and the sidebar."""

    conversation: Conversation
    prompt: PromptArea
    status: StatusBar
    sidebar: SessionsSidebar
    opening_model: str | None
    services_notice: str | None
    """Who runs the automations and channels when this console does not; in the status bar too, but there a
    narrow terminal cuts it off, so each loaded session also says it where it wraps."""
    """The model `claw chat --model` named, until it is stored with the session the console opens."""

    @property
    def follower(self) -> _Runs: ...

    @property
    def subagents(self) -> _Subagents: ...

    def load_session(self, session_key: str, *, notice: str | None = None) -> object: ...

    def refresh_sidebar(self) -> object: ...

    def follow_session(self, session_key: str, shown_runs: frozenset[str]) -> object: ...


class SessionLoader:
    """Fills the chat screen's panes from the gateway, for the session in `host.session_key`."""

    def __init__(self, host: LoaderHost) -> None:
        self.host = host

    async def connect(self) -> None:
        """Learn about the agent and the commands, store the opening model, then load the session."""
        host = self.host
        info = await self.optional("agents.get", None, agentId=host.agent_id)
        host.agent_models = list(info.get("models") or []) if info else await self._listed_models()
        commands = await self.optional("commands.list", {})
        host.prompt.catalog = slash.SlashCatalog(commands.get("commands") or [])
        notice = await self._store_opening_model()
        host.load_session(host.session_key, notice=notice)

    async def _store_opening_model(self) -> str | None:
        """`claw chat --model X` is `/model X` for the session the console opens, done once: stored with
        that session, so the status bar, `/status` and every other client agree on it, and it stays
        until `/model default`. A session switched to later keeps its own. Why it failed, if it did."""
        host = self.host
        ref, host.opening_model = host.opening_model, None
        if not ref:
            return None
        try:
            await host.api.call("sessions.patch", agentId=host.agent_id, key=host.session_key, model=ref)
        except ClawError as exc:
            return f"✗ could not use the model {ref} here: {exc.message}"
        return None

    async def _listed_models(self) -> list[str]:
        """The agent's model chain from `agents.list` (`model.primary`, then `model.fallbacks`), for a gateway
        without claw's `agents.get`: OpenClaw's own, which `claw chat --url` may attach to."""
        listed = await self.optional("agents.list", {})
        for agent in listed.get("agents") or []:
            model = agent.get("model") if isinstance(agent, dict) else None
            if agent.get("id") == self.host.agent_id and isinstance(model, dict):
                fallbacks = value if isinstance(value := model.get("fallbacks"), list) else []
                return [str(m) for m in [model.get("primary"), *fallbacks] if m]
        return []

    async def optional(self, method: str, default: Any, **params: Any) -> Any:
        """A method an older gateway may lack: its default then."""
        try:
            return await self.host.api.call(method, **params)
        except ClawError as exc:
            log.info("%s unavailable: %s", method, exc)
            return default

    async def load(self, session_key: str, *, notice: str | None = None) -> None:
        """Show `session_key`: its last messages (then `notice`), its counters, and it marked in the sidebar."""
        host, status = self.host, self.host.status
        host.cancel_workers("session-feed")  # the old session's: nothing of it may land in the new one
        host.follower.reset()
        host.subagents.reset()
        host.prompt.queued.clear()
        host.session_key = session_key
        status.session_key = session_key
        status.queued = host.prompt.queued.count  # what waits for the console to be ready stays listed
        status.state = "idle"
        status.context_pct = None
        history = await host.api.call(
            "chat.history", agentId=host.agent_id, sessionKey=session_key, limit=HISTORY_LIMIT
        )
        entry = await self.session_row(session_key)
        self.show_model(entry.get("modelOverride") if entry else None)
        widgets = history_widgets(history["messages"])
        if not widgets:
            widgets.append(Notice(f"{session_key} · Enter sends · /help lists commands and keys · Ctrl+D quits"))
        if notice:
            widgets.append(Notice(notice))
        if host.services_notice:
            widgets.append(Notice(host.services_notice, "warning"))
        if not host.has_model:
            widgets.insert(0, NoModelPanel())
        await host.conversation.replace(widgets)
        shown = frozenset(str(e["runId"]) for e in history["messages"] if e.get("runId"))
        host.follow_session(session_key, shown)  # what others send here from now on (`SessionFeed`)
        await host.subagents.resume(await self.optional("subagents.list", [], sessionKey=session_key))
        host.prompt.input.inputs.seed(user_inputs(history["messages"]))
        self.show_counters(entry)
        cost = await self.session_cost(session_key)
        if host.session_key == session_key:
            self.show_cost(cost)
        host.refresh_sidebar()
        stored = host.session_model
        report = await self.context_report(session_key)
        if host.session_model == stored:  # else /model changed it meanwhile, and shows its own
            self.show_context(report)
            self.show_model(stored, report)

    async def session_row(self, session_key: str) -> dict[str, Any] | None:
        """The session's `sessions.get` row; None for a session with no turns yet."""
        host = self.host
        try:
            return await host.api.call("sessions.get", agentId=host.agent_id, sessionKey=session_key)
        except ClawError:
            return None  # a session with no turns yet

    async def context_report(self, session_key: str) -> dict[str, Any] | None:
        """What `/context` reports for the session (`sessions.context`); None from a gateway without it."""
        return await self.optional("sessions.context", None, agentId=self.host.agent_id, sessionKey=session_key)

    def show_model(self, stored: str | None, report: dict[str, Any] | None = None) -> None:
        """Make `stored` the session's model, and show the model its next turn starts on: the one the
        gateway reported, else the same rule worked out here (`effective_model`)."""
        host = self.host
        host.session_model = stored
        host.has_model = bool(stored or host.agent_models)
        host.status.model = report.get("model") if report else effective_model(stored, host.agent_models)

    def show_context(self, report: dict[str, Any] | None) -> None:
        """The context gauge: `/context`'s total against its window, the same number (`ctx —` unknown)."""
        window = int(report.get("window") or 0) if report else 0
        self.host.status.context_pct = 100.0 * int(report["total"]) / window if report and window else None

    def show_counters(self, entry: dict[str, Any] | None) -> None:
        """Put the session's token counters (from its row) in the status bar."""
        entry = entry or {}
        self.host.status.tokens_in = int(entry.get("inputTokens") or 0)
        self.host.status.tokens_out = int(entry.get("outputTokens") or 0)

    async def session_cost(self, session_key: str) -> dict[str, Any] | None:
        """The session's totals from the usage ledger (`usage.cost`, through the client, so an attached
        console shows the gateway's numbers); None from a gateway without usage."""
        report = await self.optional("usage.cost", None, sessionKey=session_key)
        return report.get("session") if isinstance(report, dict) else None

    def show_cost(self, totals: dict[str, Any] | None) -> None:
        """The session's cost in the status bar, priced now; nothing when no call of it has a known price."""
        from claw.usage.prices import format_cost

        if not totals or totals.get("cost") is None:
            self.host.status.cost = None
            return
        self.host.status.cost = format_cost(float(totals["cost"]), int(totals.get("unpricedCalls") or 0))

    async def refresh_counters(self) -> None:
        """After a turn or a command: the counters and the gauge, and the model when another client (or
        the command) changed the one stored with the session. Otherwise the model shown stays the one
        the turn reported, which after a failover is the fallback that answered."""
        host = self.host
        key, shown = host.session_key, host.session_model
        entry = await self.session_row(key)
        report = await self.context_report(key)
        cost = await self.session_cost(key)
        if host.session_key != key or host.session_model != shown:
            return  # another session is on screen by now, or /model changed this one: each shows its own
        self.show_counters(entry)
        self.show_cost(cost)
        self.show_context(report)
        stored = entry.get("modelOverride") if entry else None
        if stored != host.session_model:
            self.show_model(stored, report)

    async def refresh_sidebar(self) -> None:
        """List the agent's sessions in the sidebar, when it is shown."""
        host = self.host
        if host.sidebar.display:
            listed = await host.api.call("sessions.list", agentId=host.agent_id)
            host.sidebar.show(listed["sessions"], host.session_key)
