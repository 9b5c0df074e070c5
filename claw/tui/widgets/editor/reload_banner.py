"""`ReloadBanner`: the file changed outside the editor — reload it, or keep what is in the editor."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static


class ReloadBanner(Horizontal):
    """Hidden until the parent calls `offer`; posts `Chosen(reload=…)` and hides again."""

    DEFAULT_CSS = """
    ReloadBanner {
        display: none;
        height: auto;
    }
    ReloadBanner.-open {
        display: block;
    }
    """

    class Chosen(Message):
        def __init__(self, reload: bool) -> None:
            super().__init__()
            self.reload = reload

    def compose(self) -> ComposeResult:
        yield Static("", id="reload-text")
        yield Button("Reload (Ctrl+R)", id="reload", variant="warning")
        yield Button("Keep mine", id="keep")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def offer(self, name: str) -> None:
        self.query_one("#reload-text", Static).update(f"{name} changed outside the editor.")
        self.add_class("-open")

    def close(self) -> None:
        self.remove_class("-open")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.close()
        self.post_message(self.Chosen(reload=event.button.id == "reload"))
