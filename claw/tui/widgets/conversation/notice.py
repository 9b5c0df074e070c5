"""`Notice`: a line from the console or the gateway itself — command replies, errors, hints."""

from __future__ import annotations

from typing import Literal

from textual.widgets import Static

Kind = Literal["info", "error", "warning"]


class Notice(Static):
    """A system line in the conversation; `kind` picks its colour (classes `-info`, `-error`, `-warning`)."""

    DEFAULT_CSS = """
    Notice {
        width: 1fr;
        height: auto;
    }
    """

    def __init__(self, text: str, kind: Kind = "info") -> None:
        super().__init__(text, markup=False, classes=f"-{kind}")
        self.text = text
        self.kind = kind
