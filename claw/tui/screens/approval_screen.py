"""`ApprovalScreen`: may `exec` run this command here (or this MCP tool be called)? Approve once, always,
or deny (Esc denies). An MCP tool's question is titled with the server and tool, never as exec's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

if TYPE_CHECKING:
    from claw.tools.base import ApprovalRequest


class ApprovalScreen(ModalScreen[str]):
    """Shows the exact command and working directory; dismisses with the decision. The run waits."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("o,y", "decide('allow-once')", "Approve once"),
        Binding("a", "decide('allow-always')", "Always"),
        Binding("d,n,escape", "decide('deny')", "Deny"),
    ]

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            if self.request.tool == "exec":
                yield Static("exec wants to run a command", id="title")
                yield Static(self.request.command, id="command", markup=False)
                yield Static(f"in {self.request.cwd}", id="cwd", markup=False)
            else:
                from claw.tui.widgets.conversation.tool_card import tool_label

                server = self.request.tool.partition("__")[0]
                yield Static(f"MCP tool {tool_label(self.request.tool)} wants to be called", id="title", markup=False)
                yield Static(self.request.command, id="command", markup=False)
                yield Static(f"on MCP server {server}, for the workspace {self.request.cwd}", id="cwd", markup=False)
            yield Static(f"for {self.request.agent_id} · {self.request.session_key}", id="session", markup=False)
            if self.request.reason:
                yield Static(self.request.reason, id="reason", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Approve once (o)", id="allow-once", variant="primary")
                if self.request.allow_always:  # else nothing would be remembered: not offered
                    yield Button("Always (a)", id="allow-always", variant="warning")
                yield Button("Deny (Esc)", id="deny", variant="error")
        yield Footer()  # its own keys (Esc denies here), not the chat screen's under it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "decide" and parameters == ("allow-always",):
            return self.request.allow_always
        return True

    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "deny")

    def action_decide(self, decision: str) -> None:
        if decision == "allow-always" and not self.request.allow_always:
            return
        self.dismiss(decision if decision in ("allow-once", "allow-always") else "deny")
