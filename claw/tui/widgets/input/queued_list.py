"""`QueuedList`: messages sent while a run was going, waiting for their turn in the session's queue; and
messages submitted before the console was ready, waiting to be sent."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widgets import Static


class QueuedList(Vertical):
    """One line per queued message, in order; a message leaves the list when its run starts. The messages
    waiting for the console (`wait`) are not runs yet: they stay when a session load clears the runs' lines."""

    DEFAULT_CSS = """
    QueuedList {
        height: auto;
        max-height: 8;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.texts: dict[str, str] = {}
        self.waiting: list[str] = []
        """Submitted before the console was ready, in order (`take_waiting` sends them)."""

    @property
    def count(self) -> int:
        return len(self.texts) + len(self.waiting)

    def wait(self, text: str) -> None:
        """List `text` as waiting for the console to be ready."""
        self.waiting.append(text)
        flat = " ".join(text.split())
        self.mount(Static(f"⏳ waiting to send: {flat}", markup=False, classes="queued waiting"))

    def take_waiting(self) -> list[str]:
        """Take the waiting messages off the list; their texts, in order."""
        taken, self.waiting = self.waiting, []
        self.query(".waiting").remove()
        return taken

    def add(self, run_id: str, text: str) -> None:
        self.texts[run_id] = text
        flat = " ".join(text.split())
        self.mount(Static(f"⏳ queued: {flat}", markup=False, id=f"queued-{run_id}", classes="queued"))

    def take(self, run_id: str) -> str | None:
        """Take `run_id` off the list; its text, or None if it was not queued. (Not `remove`: that is
        Textual's, for removing the widget itself.)"""
        text = self.texts.pop(run_id, None)
        if text is not None:
            for line in self.query(f"#queued-{run_id}"):
                line.remove()
        return text

    def clear(self) -> None:
        """Forget the queued runs (the messages waiting for the console stay)."""
        self.texts.clear()
        self.query(".queued").exclude(".waiting").remove()
