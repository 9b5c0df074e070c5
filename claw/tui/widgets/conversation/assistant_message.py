"""`AssistantMessage`: the assistant's text, rendered as Markdown while it streams."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

FLUSH_SECONDS = 1 / 30
"""How often buffered deltas go to the Markdown stream. A model can send a thousand deltas a
second; the eye needs no more than ~30 updates, and each update re-lays out the conversation."""


class AssistantMessage(Widget):
    """Markdown that grows through `Markdown.get_stream`, which appends only the new text (the
    last block is re-parsed, never the whole message). Deltas are gathered for `FLUSH_SECONDS`
    and written as one fragment. `finish` flushes and may add a note (`aborted`, `error`)."""

    DEFAULT_CSS = """
    AssistantMessage {
        width: 1fr;
        height: auto;
    }
    AssistantMessage > .note {
        display: none;
    }
    AssistantMessage.-noted > .note {
        display: block;
    }
    AssistantMessage.-continuation {
        margin-top: 0;
    }
    """

    def __init__(self, text: str = "", *, note: str | None = None, continuation: bool = False) -> None:
        super().__init__(classes="-continuation" if continuation else "")
        self._initial = text
        self._note = note
        self._stream: MarkdownStream | None = None
        self._pending: list[str] = []
        self._flush_timer: Timer | None = None
        self._written = text
        self.finished = note is not None or bool(text)

    def compose(self) -> ComposeResult:
        yield Markdown(self._initial)
        yield Static(self._note or "", classes="note", markup=False)

    def on_mount(self) -> None:
        if self._note:
            self.add_class("-noted")

    @property
    def markdown(self) -> Markdown:
        return self.query_one(Markdown)

    @property
    def text(self) -> str:
        """Everything received so far (the last ~30 ms of it may not be on screen yet)."""
        return self._written

    async def write(self, delta: str) -> None:
        """Append a streamed fragment (shown within `FLUSH_SECONDS`)."""
        if not delta:
            return
        self._written += delta
        self._pending.append(delta)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)

    async def _flush(self) -> None:
        self._flush_timer = None
        if not self._pending:
            return
        fragment = "".join(self._pending)
        self._pending.clear()
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        await self._stream.write(fragment)

    async def cut(self, at: int) -> str:
        """Keep the first `at` characters and stop streaming; return the rest, for the next chunk
        (see `claw.tui.markdown_chunks`)."""
        head, tail = self._written[:at], self._written[at:]
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        self._pending.clear()
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self._written = head
        await self.markdown.update(head)
        self.finished = True
        return tail

    async def finish(self, note: str | None = None) -> None:
        """Show what is pending and stop streaming; `note` is shown under the text."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
        await self._flush()
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self.finished = True
        if note:
            self.query_one(".note", Static).update(note)
            self.add_class("-noted")
