"""`StatusBar`: agent, session, model, run state, tokens, context used, queued messages and where the
gateway runs (in this process, or the URL of the one the console is attached to), on one line."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from claw.tui.format import short_key, tokens

STATE_STYLES = {
    "idle": "green",
    "thinking": "yellow",
    "streaming": "cyan",
    "running tool": "magenta",
    "waiting for approval": "bold yellow",
    "error": "bold red",
    "connecting": "dim",
}


class StatusBar(Widget):
    """The parent sets the attributes; the bar only draws them."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        width: 1fr;
    }
    """

    agent_id: reactive[str] = reactive("main")
    session_key: reactive[str] = reactive("")
    model: reactive[str | None] = reactive(None)
    state: reactive[str] = reactive("idle")
    tokens_in: reactive[int] = reactive(0)
    tokens_out: reactive[int] = reactive(0)
    cost: reactive[str | None] = reactive(None)
    """The session's cost so far (`$0.0123`, from the usage ledger); None when no price is known."""
    context_pct: reactive[float | None] = reactive(None)
    """The share of the model's window the session's prompt fills, as `/context` counts it; None: unknown."""
    queued: reactive[int] = reactive(0)
    approvals: reactive[int] = reactive(0)
    """Exec questions waiting for the user; while there are any, they are the state shown."""
    mcp: reactive[tuple[int, int] | None] = reactive(None)
    """MCP servers (up, configured), from the gateway's `mcp.status`; None: none configured (not shown)."""
    where: reactive[str | None] = reactive(None)
    """`in-process`, or the URL of the gateway the console is attached to (`GatewayClient.where`)."""
    notice: reactive[str | None] = reactive(None)
    """A standing caveat about this console, shown last (e.g. another process runs the automations)."""

    def render(self) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        state = "waiting for approval" if self.approvals else self.state
        line.append(" ● ", style=STATE_STYLES.get(state, ""))
        line.append(state, style=STATE_STYLES.get(state, ""))
        line.append("  │  ", style="dim")
        line.append(f"{self.agent_id}", style="bold")
        line.append(" · ", style="dim")
        line.append(short_key(self.session_key))
        line.append("  │  ", style="dim")
        if self.model:
            line.append(self.model)
        elif self.state == "connecting":  # not known yet: "no model" would be a false alarm
            line.append("model …", style="dim")
        else:
            line.append("no model", style="bold red")
        line.append("  │  ", style="dim")
        line.append(f"↑{tokens(self.tokens_in)} ↓{tokens(self.tokens_out)}")
        if self.cost:
            line.append(f" {self.cost}")
        # One decimal, as `/context` prints its total: the gauge is that number (`SessionLoader.show_context`).
        ctx = "ctx —" if self.context_pct is None else f"ctx {self.context_pct:.1f}%"
        line.append(f"  {ctx}", style="bold red" if (self.context_pct or 0) >= 85 else "")
        if self.queued:
            line.append("  │  ", style="dim")
            line.append(f"{self.queued} queued", style="bold yellow")
        if self.mcp is not None:
            up, total = self.mcp
            line.append("  │  ", style="dim")
            line.append(f"mcp {up}/{total}", style="" if up == total else "bold yellow")
        if self.where:
            line.append("  │  ", style="dim")
            local = self.where == "in-process"
            line.append("in-process gateway" if local else f"attached to {self.where}", style="dim" if local else "")
        if self.notice:
            line.append("  │  ", style="dim")
            line.append(self.notice, style="yellow")
        return line

    @property
    def plain(self) -> str:
        return self.render().plain
