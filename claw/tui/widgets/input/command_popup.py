"""`CommandPopup`: the slash-command completions shown above the prompt while typing `/…`."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from claw.tui.slash import SlashCommand


def _line(usage: str, description: str) -> Text:
    """One line a command (the CSS keeps it to one, ending a long description in "…")."""
    return Text.assemble((usage, "bold"), (description, "dim"))


class CommandPopup(OptionList, can_focus=False):
    """Matching commands with their usage and description; the parent moves and reads the highlight."""

    DEFAULT_CSS = """
    CommandPopup {
        display: none;
        height: auto;
        max-height: 12;
        text-wrap: nowrap;  /* one line a command: a long description ends in "…" */
        text-overflow: ellipsis;
    }
    CommandPopup.-open {
        display: block;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.commands: list[SlashCommand] = []

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show(self, commands: list[SlashCommand]) -> None:
        """Offer `commands` (none: close)."""
        self.commands = commands
        self.clear_options()
        if not commands:
            self.remove_class("-open")
            return
        width = max(len(c.usage) for c in commands)
        self.add_options(Option(_line(c.usage.ljust(width + 2), c.description), id=c.name) for c in commands)
        self.highlighted = 0
        self.add_class("-open")

    def close(self) -> None:
        self.show([])

    def move(self, delta: int) -> None:
        if self.commands:
            self.highlighted = ((self.highlighted or 0) + delta) % len(self.commands)

    @property
    def chosen(self) -> SlashCommand | None:
        index = self.highlighted
        return self.commands[index] if self.commands and index is not None else None
