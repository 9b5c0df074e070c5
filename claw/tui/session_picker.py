"""Picking a session: the Ctrl+P palette (`SessionsProvider`) and the resume picker (`SessionPickerScreen`,
for `/resume` and `claw chat --resume`), both matching what was said as well as keys and previews.

The palette is Textual's command palette fed with this agent's sessions: a query is matched fuzzily
against each session's key and last message, and (from two characters on) searched in the message
text of every session through `sessions.search`, a hit showing the matched words. The resume picker
is a screen of its own because it previews: the last messages of the highlighted session, fetched
when the highlight moves (one `chat.history` call at a time; a newer move cancels the older one).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Protocol

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from claw.client.protocol import GatewayClient
from claw.errors import ClawError
from claw.tui.format import ago, short_key
from claw.untrusted import shown

MIN_SEARCH_CHARS = 2
PREVIEW_MESSAGES = 8
_ROLES = {"user": "you", "assistant": "assistant", "system": "system"}


class SessionPicked(Message):
    """Posted to the screen that opened the picker."""

    def __init__(self, session_key: str) -> None:
        super().__init__()
        self.session_key = session_key


class _PickerHost(Protocol):
    api: GatewayClient
    agent_id: str


async def message_hits(api: GatewayClient, agent_id: str, query: str, limit: int = 40) -> list[dict[str, Any]]:
    """The newest matching message of each live session whose text matches `query` (as you type: the last
    word may be unfinished); [] for a short query or a gateway without `sessions.search`."""
    if len(query.strip()) < MIN_SEARCH_CHARS:
        return []
    try:
        found = await api.call("sessions.search", agentId=agent_id, query=query, prefix=True, limit=limit)
    except ClawError:
        return []
    best: dict[str, dict[str, Any]] = {}
    for row in found.get("results", []):
        if not row.get("archived") and row.get("sessionKey") and row["sessionKey"] not in best:
            best[row["sessionKey"]] = row
    return list(best.values())


def highlighted(row: dict[str, Any], prefix: str = "") -> Text:
    """A search hit's snippet, its matched words in bold."""
    text = Text(prefix + row.get("snippet", ""))
    for start, end in row.get("highlights", []):
        text.stylize("bold reverse", len(prefix) + start, len(prefix) + end)
    return text


class SessionsProvider(Provider):
    """Matches the query against each session's key and last-message preview, and searches message text."""

    async def startup(self) -> None:
        host: Any = self.screen  # the chat screen that opened the palette
        self.host: _PickerHost = host
        self.rows: list[dict[str, Any]] = (await host.api.call("sessions.list", agentId=host.agent_id))["sessions"]

    def _label(self, row: dict[str, Any]) -> str:
        return f"{short_key(row['key'])}  ·  {row.get('lastMessagePreview') or '(empty)'}"

    def _help(self, row: dict[str, Any]) -> str:
        return f"{row['key']} · {row.get('messages', 0)} messages · {ago(row.get('updatedAt'))}"

    def _pick(self, session_key: str) -> None:
        self.screen.post_message(SessionPicked(session_key))

    async def discover(self) -> Hits:
        for row in self.rows:
            yield DiscoveryHit(self._label(row), partial(self._pick, row["key"]), help=self._help(row))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        shown: set[str] = set()
        for row in self.rows:
            label = self._label(row)
            score = matcher.match(label)
            if score > 0:
                shown.add(row["key"])
                yield Hit(score, matcher.highlight(label), partial(self._pick, row["key"]), help=self._help(row))
        for hit in await message_hits(self.host.api, self.host.agent_id, query):
            key = hit["sessionKey"]
            if key in shown:
                continue
            said = highlighted(hit, f"{short_key(key)}  ·  ")
            help_text = f"{key} · said {ago(hit.get('createdAt'))}"
            yield Hit(0.5, said, partial(self._pick, key), text=said.plain, help=help_text)


class SessionPickerScreen(ModalScreen[str | None]):
    """Sessions to resume, filtered as you type (keys, previews and message text), with a preview of the
    highlighted one's last messages. Dismissed with the key picked, or None (Escape)."""

    DEFAULT_CSS = """
    SessionPickerScreen { align: center middle; }
    SessionPickerScreen > Vertical { width: 90%; height: 80%; border: round $accent; background: $surface; }
    SessionPickerScreen OptionList { width: 1fr; }
    SessionPickerScreen #preview { width: 1fr; padding: 0 1; border-left: solid $panel; }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "Close")]

    def __init__(self, api: GatewayClient, agent_id: str) -> None:
        super().__init__()
        self.api = api
        self.agent_id = agent_id
        self.rows: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(placeholder="Resume a session: type to search keys and what was said…", id="query")
            with Horizontal():
                yield OptionList(id="sessions")
                yield Static("", id="preview")

    async def on_mount(self) -> None:
        self.rows = (await self.api.call("sessions.list", agentId=self.agent_id))["sessions"]
        self.filter("")

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            self.dismiss(options.get_option_at_index(options.highlighted or 0).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.preview(event.option.id)

    @work(exclusive=True, group="filter", exit_on_error=False)
    async def filter(self, query: str) -> None:
        words = query.lower().split()
        options: list[Option] = []
        for row in self.rows:
            preview = row.get("lastMessagePreview") or ""
            haystack = f"{row['key']} {preview}".lower()
            if all(word in haystack for word in words):
                label = f"{short_key(row['key'])}  ·  {ago(row.get('updatedAt'))}\n  {shown(preview)}"
                options.append(Option(label, id=row["key"]))
        listed = {option.id for option in options}
        for hit in await message_hits(self.api, self.agent_id, query):
            if hit["sessionKey"] not in listed:
                said = Text(f"{short_key(hit['sessionKey'])}  ·  {ago(hit.get('createdAt'))}\n")
                said.append_text(highlighted(hit, "  "))
                options.append(Option(said, id=hit["sessionKey"]))
        sessions = self.query_one(OptionList)
        sessions.clear_options()
        sessions.add_options(options)
        if options:
            sessions.highlighted = 0
        else:
            self.query_one("#preview", Static).update("No session matches.")

    @work(exclusive=True, group="preview", exit_on_error=False)
    async def preview(self, session_key: str) -> None:
        history = await self.api.call(
            "chat.history", agentId=self.agent_id, sessionKey=session_key, limit=PREVIEW_MESSAGES * 3
        )
        from rich.console import Group
        from rich.markdown import Markdown

        from claw.transcript_entries import undone_ids

        messages = history.get("messages", [])
        undone = undone_ids(messages)  # out of the conversation (/undo): not what it is about now
        shown = [e for e in messages if e.get("role") in _ROLES and e.get("content") and e.get("id") not in undone]
        parts: list[Text | Markdown] = [Text(f"{session_key}\n", style="bold")]
        for entry in shown[-PREVIEW_MESSAGES:]:  # each as the conversation shows it: Markdown, not its source
            parts.append(
                Text(f"{_ROLES[entry['role']]}:", style="bold cyan" if entry["role"] == "user" else "bold green")
            )
            body = str(entry.get("display") or entry["content"])
            parts.append(Markdown(body[:400] + ("…" if len(body) > 400 else "")))
            parts.append(Text(""))
        if not shown:
            parts.append(Text("(no messages yet)", style="dim"))
        self.query_one("#preview", Static).update(Group(*parts))


class ResumePickerApp(App[str | None]):
    """`claw chat --resume`: only the resume picker, before the console opens on what was picked."""

    def __init__(self, api: GatewayClient, agent_id: str) -> None:
        super().__init__()
        self.api = api
        self.agent_id = agent_id

    def on_mount(self) -> None:
        self.push_screen(SessionPickerScreen(self.api, self.agent_id), callback=self.exit)
