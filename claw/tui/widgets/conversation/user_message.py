"""`UserMessage`: what the user sent, as they typed it."""

from __future__ import annotations

from textual.widgets import Static


class UserMessage(Static):
    """One user message; shown verbatim (no markup), prefixed with a prompt mark by the stylesheet."""

    DEFAULT_CSS = """
    UserMessage {
        width: 1fr;
        height: auto;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False)
        self.text = text
