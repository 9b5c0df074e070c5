"""`FileStatus`: the edited file's size against its per-file cap, with a truncation warning."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from claw.workspace import HEAD_RATIO, NOT_INJECTED, TAIL_RATIO


class FileStatus(Widget):
    """The parent sets `name`, `chars` (after trimming trailing whitespace, as the injector does),
    `cap`, `dirty` and `note`; this draws one line."""

    DEFAULT_CSS = """
    FileStatus {
        height: 1;
    }
    """

    name: reactive[str] = reactive("")
    chars: reactive[int] = reactive(0)
    cap: reactive[int | None] = reactive(None)
    dirty: reactive[bool] = reactive(False)
    note: reactive[str] = reactive("")

    @property
    def truncated(self) -> bool:
        return self.cap is not None and self.name not in NOT_INJECTED and self.chars > self.cap

    def render(self) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f" {self.name}", style="bold")
        line.append(" ● modified" if self.dirty else "", style="yellow")
        if self.name in NOT_INJECTED:
            line.append(f"  {self.chars:,} chars (searched by memory recall, not injected whole)", style="dim")
        elif self.cap is not None:
            line.append(f"  {self.chars:,} / {self.cap:,} chars", style="bold red" if self.truncated else "dim")
            if self.truncated:
                line.append(
                    f"  ⚠ over the cap: the prompt gets {HEAD_RATIO:.0%} head + {TAIL_RATIO:.0%} tail", style="red"
                )
        if self.note:
            line.append(f"  {self.note}", style="green")
        return line

    @property
    def plain(self) -> str:
        return self.render().plain
