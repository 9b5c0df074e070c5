"""`SessionsSidebar`: this agent's sessions, newest first, with last-message preview and time."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from claw.tui.format import ago, short_key
from claw.untrusted import shown


class SessionsSidebar(Vertical):
    """The parent sets `rows` (from `sessions.list`) and `current`; choosing a row posts `Selected`."""

    DEFAULT_CSS = """
    SessionsSidebar {
        height: 1fr;
    }
    SessionsSidebar > OptionList {
        height: 1fr;
    }
    """

    class Selected(Message):
        def __init__(self, session_key: str) -> None:
            super().__init__()
            self.session_key = session_key

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[dict[str, Any]] = []
        self.current = ""

    def compose(self) -> ComposeResult:
        yield Static("Sessions", classes="title")
        yield OptionList()

    def show(self, rows: list[dict[str, Any]], current: str) -> None:
        """Replace the list; the current session is marked and highlighted."""
        self.rows, self.current = rows, current
        options = self.query_one(OptionList)
        options.clear_options()
        keys = [row["key"] for row in rows]
        if current not in keys:
            keys.insert(0, current)
            rows = [{"key": current, "lastMessagePreview": "(new)", "updatedAt": None}, *rows]
        options.add_options(Option(self._prompt(row), id=row["key"]) for row in rows)
        options.highlighted = keys.index(current)

    def _prompt(self, row: dict[str, Any]) -> Text:
        key = row["key"]
        mark = "● " if key == self.current else "  "
        prompt = Text(no_wrap=True, overflow="ellipsis")
        prompt.append(mark + short_key(key), style="bold" if key == self.current else "")
        when = ago(row.get("updatedAt"))
        if when:
            prompt.append(f"  {when}", style="dim")
        preview = row.get("lastMessagePreview") or ""
        prompt.append("\n  " + (shown(preview[:60]) if preview else "(empty)"), style="dim")
        return prompt

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id and event.option.id != self.current:
            self.post_message(self.Selected(event.option.id))
