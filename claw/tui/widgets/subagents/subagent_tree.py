"""`SubagentTree`: the children one turn spawned, under that turn in the conversation; a child's own
children are listed beneath it, indented."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from claw.tui.subagent_info import ChildInfo
from claw.tui.widgets.subagents.subagent_row import SubagentRow

HINT = "Tab to a row, x stops it"


class SubagentTree(Vertical):
    """Rows in tree order. The parent calls `show` with each new or changed `ChildInfo`."""

    DEFAULT_CSS = """
    SubagentTree {
        width: 1fr;
        height: auto;
    }
    """

    def __init__(self, turn_run_id: str) -> None:
        super().__init__()
        self.turn_run_id = turn_run_id
        self.rows: dict[str, SubagentRow] = {}
        self._header = Static("", classes="header", markup=False)

    def compose(self) -> ComposeResult:
        yield self._header

    def on_mount(self) -> None:
        self._update_header()

    @property
    def children_info(self) -> list[ChildInfo]:
        return [row.info for row in self.rows.values() if row.info is not None]

    async def show(self, info: ChildInfo) -> SubagentRow:
        """Add the row of `info`, or bring its row up to date."""
        row = self.rows.get(info.run_id)
        if row is not None:
            row.info = info
            self._update_header()
            return row
        parent = self.rows.get(info.parent_run_id)
        row = SubagentRow(info, level=parent.level + 1 if parent else 0)
        self.rows[info.run_id] = row
        if parent is None:
            await self.mount(row)
        else:
            await self.mount(row, after=self._last_of_subtree(parent))
        self._update_header()
        return row

    def _last_of_subtree(self, parent: SubagentRow) -> SubagentRow:
        """The last row under `parent` (itself when it has none): a new child of `parent` goes after it."""
        rows = [child for child in self.children if isinstance(child, SubagentRow)]
        inside = {parent.run_id}
        last = parent
        for row in rows[rows.index(parent) + 1 :]:
            if row.info is None or row.info.parent_run_id not in inside:
                break
            inside.add(row.run_id)
            last = row
        return last

    def _update_header(self) -> None:
        infos = self.children_info
        running = sum(1 for info in infos if not info.finished)
        count = f"{len(infos)} subagent{'s' if len(infos) != 1 else ''}"
        state = f" · {running} running · {HINT}" if running else ""
        self._header.update(f"{count}{state}")
