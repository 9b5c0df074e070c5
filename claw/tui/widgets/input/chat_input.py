"""`ChatInput`: the prompt. Enter sends; Shift+Enter or Ctrl+J inserts a newline; Up/Down recall
earlier inputs; Ctrl+G edits the prompt in `$EDITOR`."""

from __future__ import annotations

from typing import Literal

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from claw.tui.external_editor import edit_in_editor
from claw.tui.input_history import InputHistory

CompletionKey = Literal["up", "down", "accept", "enter"]


class ChatInput(TextArea):
    """A multi-line prompt. While the parent shows completions (`completing`), Up/Down/Tab/Enter
    go to them as `CompletionKeyPressed` messages instead."""

    DEFAULT_CSS = """
    ChatInput {
        height: auto;
        max-height: 12;
        min-height: 3;
    }
    """

    BINDINGS = [Binding("ctrl+g", "external_editor", "Edit in $EDITOR", show=False)]

    class Submitted(Message):
        """The user pressed Enter on a non-empty prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class CompletionKeyPressed(Message):
        def __init__(self, key: CompletionKey) -> None:
            super().__init__()
            self.key = key

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus", placeholder=placeholder)
        self.inputs = InputHistory()
        self.completing = False

    async def _on_key(self, event: events.Key) -> None:
        handled = self._special_key(event.key) or await self._own_binding(event.key)
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _own_binding(self, key: str) -> bool:
        """Run the prompt's own binding for `key` (Ctrl+U, Ctrl+W, arrows …) here, in typing order. Textual
        resolves a widget's non-priority bindings only once the key has bubbled up to the app, through every
        ancestor's queue: with the screen busy (a run ending) `Ctrl+U` then `two` `Enter` became `two`, `Enter`,
        `Ctrl+U`, and the text meant to be cleared was sent."""
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def _special_key(self, key: str) -> bool:
        if self.completing and key in ("up", "down", "tab", "enter"):
            # Enter apart from Tab: the popup may be stale (text typed faster than it follows), and then
            # Enter submits what is typed (PromptArea decides, from the text as it is now).
            self.post_message(self.CompletionKeyPressed("accept" if key == "tab" else key))  # type: ignore[arg-type]
            return True
        if key == "enter":
            self.submit()
            return True
        if key in ("shift+enter", "ctrl+j"):
            self.insert("\n")
            return True
        row = self.cursor_location[0]
        if key == "up" and row == 0:
            return self._recall(self.inputs.previous(self.text))
        if key == "down" and row == self.document.line_count - 1 and self.inputs.browsing:
            return self._recall(self.inputs.next())
        return False

    def _recall(self, text: str | None) -> bool:
        if text is None:
            return False
        self.set_text(text)
        return True

    def set_text(self, text: str) -> None:
        """Replace the prompt and put the cursor at its end."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.inputs.add(text)
        self.load_text("")
        self.post_message(self.Submitted(text))

    def action_external_editor(self) -> None:
        edited = edit_in_editor(self.app, self.text)
        if edited is not None:
            self.set_text(edited.rstrip("\n"))
        self.focus()
