"""`PromptArea`: the prompt with its slash-command completion popup and the queued messages above it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import TextArea

from claw.tui.slash import SlashCatalog, SlashCommand
from claw.tui.widgets.input.chat_input import ChatInput
from claw.tui.widgets.input.command_popup import CommandPopup
from claw.tui.widgets.input.queued_list import QueuedList


class PromptArea(Vertical):
    """Owns completion: as the prompt changes it offers matching commands from `catalog` (set by the
    parent), and applies the chosen one. `ChatInput.Submitted` bubbles on to the screen."""

    DEFAULT_CSS = """
    PromptArea {
        height: auto;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.catalog = SlashCatalog()
        self.queued = QueuedList(id="queued")
        self.popup = CommandPopup(id="completions")
        self.input = ChatInput(id="prompt", placeholder="Message (Enter to send, Ctrl+J newline, / for commands)")

    def compose(self) -> ComposeResult:
        yield self.queued
        yield self.popup
        yield self.input

    def close_completions(self) -> bool:
        """Close the popup; False if it was not open."""
        if not self.popup.is_open:
            return False
        self.popup.close()
        self.input.completing = False
        self.screen.refresh_bindings()  # the footer names what Esc does now
        return True

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        matches = self._completions()
        self.popup.show(matches)
        self.input.completing = bool(matches)
        self.screen.refresh_bindings()

    def _completions(self) -> list[SlashCommand]:
        matches = self.catalog.complete(self.input.text)
        if len(matches) == 1 and f"/{matches[0].name}" == self.input.text.strip():
            return []  # fully typed, nothing left to complete
        return matches

    def on_chat_input_completion_key_pressed(self, event: ChatInput.CompletionKeyPressed) -> None:
        event.stop()
        if event.key in ("up", "down"):
            self.popup.move(-1 if event.key == "up" else 1)
            return
        if event.key == "enter" and not self._completions():  # typed on past the popup: send what is typed
            self.close_completions()
            self.input.call_later(self.input.submit)
            return
        chosen = self.popup.chosen
        self.close_completions()
        if chosen is None:
            return
        if chosen.args:
            self.input.set_text(f"/{chosen.name} ")
        else:
            self.input.set_text(f"/{chosen.name}")
            # Submitted from the input's own message loop: a message created while this widget handles
            # one carries this widget as its sender, and Textual never bubbles a message back to its sender.
            self.input.call_later(self.input.submit)
