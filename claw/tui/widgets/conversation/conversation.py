"""`Conversation`: the scrolling column of messages, tool cards and notices.

Deliberately thin: it mounts what it is given and keeps the view pinned to the bottom
while the user has not scrolled up. What goes in it is decided by the screen and `RunView`.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.containers import VerticalScroll
from textual.widget import Widget

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.notice import Kind, Notice
from claw.tui.widgets.conversation.tool_card import ToolCard
from claw.tui.widgets.conversation.user_message import UserMessage


class Conversation(VerticalScroll, can_focus=False):
    """Messages in order; `tools_expanded` is what Ctrl+O last set for every tool card."""

    DEFAULT_CSS = """
    Conversation {
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tools_expanded = False

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, widget: Widget) -> Widget:
        """Mount `widget` at the end (a tool card takes the current expand-all setting)."""
        if isinstance(widget, ToolCard) and self.tools_expanded:
            widget.expanded = True
        await self.mount(widget)
        return widget

    async def add_user(self, text: str) -> UserMessage:
        message = UserMessage(text)
        await self.add(message)
        return message

    async def add_assistant(self, *, continuation: bool = False) -> AssistantMessage:
        message = AssistantMessage(continuation=continuation)
        await self.add(message)
        return message

    async def add_notice(self, text: str, kind: Kind = "info") -> Notice:
        notice = Notice(text, kind)
        await self.add(notice)
        return notice

    async def replace(self, widgets: Iterable[Widget]) -> None:
        """Show exactly `widgets` (a loaded history), scrolled to the end."""
        batch = list(widgets)
        for widget in batch:
            if isinstance(widget, ToolCard) and self.tools_expanded:
                widget.expanded = True
        with self.app.batch_update():
            await self.remove_children()
            await self.mount_all(batch)
        self.scroll_end(animate=False)
        self.anchor()

    def toggle_tools(self) -> bool:
        """Expand every tool card, or collapse every one; returns the new setting."""
        self.tools_expanded = not self.tools_expanded
        for card in self.query(ToolCard):
            card.expanded = self.tools_expanded
        return self.tools_expanded
