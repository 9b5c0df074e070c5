"""`EditorScreen`: a workspace bootstrap file (SOUL.md, AGENTS.md, …) in a Markdown TextArea.

Reads and writes go through the gateway (`workspace.read` / `workspace.write`, which
replaces the file atomically), so they work the same against a remote gateway. While
open, the file is polled; a change made elsewhere is offered for reload.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea
from textual.worker import Worker, WorkerState

from claw.client.protocol import GatewayClient
from claw.errors import ClawError
from claw.tui.widgets.editor.file_status import FileStatus
from claw.tui.widgets.editor.reload_banner import ReloadBanner

POLL_SECONDS = 1.0


def _markdown_language() -> str | None:
    from textual._tree_sitter import get_language  # the check TextArea itself makes

    return "markdown" if get_language("markdown") is not None else None


class EditorScreen(Screen[None]):
    """Ctrl+S saves; Ctrl+R reloads from disk; Esc closes (twice when there are unsaved changes);
    Ctrl+Home / Ctrl+End go to the start / end of the file (with Shift: selecting)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    # Textual's TextArea binds Home/End to the line only, and nothing to Ctrl+Home/Ctrl+End. Under tmux
    # (3.3, TERM=xterm-256color outside, default settings, extended-keys on or off) the application
    # receives `ESC [1;5H` / `ESC [1;5F` for those keys — tmux re-encodes xterm's and rxvt's forms
    # alike — which Textual names ctrl+home / ctrl+end, so these bindings are the ones that fire there.
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("ctrl+r", "reload", "Reload from disk"),
        Binding("escape", "close", "Close", priority=True),
        Binding("ctrl+home", "document_start", "Start of file", show=False),
        Binding("ctrl+end", "document_end", "End of file", show=False),
        Binding("ctrl+shift+home", "document_start(True)", "Select to start", show=False),
        Binding("ctrl+shift+end", "document_end(True)", "Select to end", show=False),
    ]

    def __init__(self, client: GatewayClient, agent_id: str, name: str) -> None:
        super().__init__()
        self.client = client
        self.agent_id = agent_id
        self.file_name = name
        self.disk_text: str | None = None
        """The file as last read or saved: what "modified" and outside changes are measured against."""
        self._offered: str | None = None
        self._close_armed = False

    def compose(self) -> ComposeResult:
        yield Static(f"Editing {self.file_name}", id="editor-title", markup=False)
        yield FileStatus(id="file-status")
        yield ReloadBanner(id="reload-banner")
        yield TextArea.code_editor("", language=_markdown_language(), soft_wrap=True, id="editor")
        yield Footer()

    @property
    def editor(self) -> TextArea:
        return self.query_one("#editor", TextArea)

    @property
    def status(self) -> FileStatus:
        return self.query_one(FileStatus)

    def on_mount(self) -> None:
        self.editor.theme = "monokai" if self.app.current_theme.dark else "github_light"
        self.load()
        self.set_interval(POLL_SECONDS, self.poll)

    @work(exclusive=True, group="editor-io", exit_on_error=False)
    async def load(self) -> None:
        info = await self._read()
        self.query_one("#editor-title", Static).update(f"Editing {info['path']}")
        self.status.name = info["name"]
        self.status.cap = info.get("cap")
        self._show_disk(info["content"])
        self.editor.focus()

    def _show_disk(self, text: str) -> None:
        self.disk_text = self._offered = text
        self.editor.load_text(text)
        self._measure()

    async def _read(self) -> dict[str, Any]:
        return await self.client.call("workspace.read", agentId=self.agent_id, name=self.file_name)

    @work(exclusive=True, group="editor-poll", exit_on_error=False)
    async def poll(self) -> None:
        if self.disk_text is None:
            return
        try:
            current = (await self._read())["content"]
        except Exception as exc:  # a transient failure must not close the editor
            self.status.note = f"cannot check the file: {exc}"
            return
        if current not in (self.disk_text, self._offered):
            self._offered = current
            if current == self.editor.text:  # someone saved exactly what is in the editor
                self.disk_text = current
                self._measure()
            else:
                self.query_one(ReloadBanner).offer(self.status.name)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            text = error.message if isinstance(error, ClawError) else f"{type(error).__name__}: {error}"
            self.notify(f"{self.file_name}: {text}", severity="error", timeout=8)

    def on_reload_banner_chosen(self, event: ReloadBanner.Chosen) -> None:
        if event.reload:
            self.action_reload()

    def action_reload(self) -> None:
        self.query_one(ReloadBanner).close()
        self.load()

    @work(exclusive=True, group="editor-io", exit_on_error=False)
    async def action_save(self) -> None:
        text = self.editor.text
        result = await self.client.call("workspace.write", agentId=self.agent_id, name=self.file_name, content=text)
        self.disk_text = self._offered = text
        self.query_one(ReloadBanner).close()
        self._measure()
        self.status.note = f"saved {result['chars']:,} chars; applies from the next turn"

    def action_document_start(self, select: bool = False) -> None:
        self.editor.move_cursor((0, 0), select=select)

    def action_document_end(self, select: bool = False) -> None:
        self.editor.move_cursor(self.editor.document.end, select=select)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._close_armed = False
        self._measure()

    def _measure(self) -> None:
        text = self.editor.text
        self.status.chars = len(text.rstrip())
        self.status.dirty = self.disk_text is not None and text != self.disk_text
        if self.status.dirty:
            self.status.note = ""

    def action_close(self) -> None:
        if self.status.dirty and not self._close_armed:
            self._close_armed = True
            self.notify("Unsaved changes: Esc again discards them, Ctrl+S saves.", severity="warning")
            return
        self.dismiss(None)
