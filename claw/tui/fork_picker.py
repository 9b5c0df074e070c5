"""Picking one of your messages in the conversation: the picker `/fork` and `/rewrite` open when no
number is given.

The rows come from `sessions.forkPoints` (so a console attached to a remote gateway gets the same ones),
newest first, since the message you want to go back to is most often a recent one. Each row shows the
number its command takes, so the picker also teaches the typed form (`/fork 6`, `/rewrite 5`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from claw.tui.format import ago

LABEL_CHARS = 100


@dataclass(frozen=True, slots=True)
class MessageChoice:
    """One row of the picker: the number dismissing it returns, and what it shows of the message."""

    number: int
    preview: str
    created_at: str | None = None


def fork_choices(points: Iterable[dict[str, Any]]) -> list[MessageChoice]:
    """`/fork`'s rows: each message whose turn has ended, numbered by the fork that keeps its exchange."""
    return [MessageChoice(p["after"], p.get("preview") or "", p.get("createdAt")) for p in points if p.get("after")]


def edit_choices(points: Iterable[dict[str, Any]]) -> list[MessageChoice]:
    """`/rewrite`'s rows: each message, numbered by its own place among the session's messages."""
    return [MessageChoice(p["number"], p.get("preview") or "", p.get("createdAt")) for p in points]


def one_line(text: str, limit: int = LABEL_CHARS) -> str:
    """`text` on one line, elided after `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class MessagePickerScreen(ModalScreen[int | None]):
    """Your messages, newest first; Enter dismisses with the picked row's number, Escape with None."""

    DEFAULT_CSS = """
    MessagePickerScreen { align: center middle; }
    MessagePickerScreen > Vertical { width: 90%; height: 70%; border: round $accent; background: $surface; }
    MessagePickerScreen #title { padding: 0 1; text-style: bold; }
    MessagePickerScreen OptionList { height: 1fr; }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, title: str, choices: Iterable[MessageChoice], *, number_label: str) -> None:
        super().__init__()
        self.title_text = title
        self.choices = list(choices)
        self.number_label = number_label
        """How a row names its number (`fork at`, `message`), so the typed form reads the same."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"{self.title_text}  (Enter picks, Esc cancels)", id="title")
            yield OptionList(*self._options(), id="messages")

    def _options(self) -> list[Option]:
        width = len(str(max((c.number for c in self.choices), default=0)))
        options = []
        for choice in reversed(self.choices):
            when = ago(choice.created_at)
            head = f"{self.number_label} {str(choice.number).rjust(width)}" + (f"  ·  {when}" if when else "")
            options.append(Option(f"{head}\n  {one_line(choice.preview) or '(no text)'}", id=str(choice.number)))
        return options

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        if options.option_count:
            options.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id) if event.option.id else None)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
