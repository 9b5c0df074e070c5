"""`ClawApp`: the console's App — themes, the chat screen, the connection, exec approvals.
Kept thin on purpose; the behaviour lives in the screens, the widgets and `RunView`.

`make_app(client)` builds one around any `GatewayClient` (tests, `claw chat --url`);
`make_app(connect=…)` opens the connection after the first frame is on screen, so the
in-process gateway's start-up (its imports, extensions and services) does not delay it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import work
from textual.app import App

from claw.client.protocol import GatewayClient
from claw.errors import ClawError
from claw.tui.approvals import ApprovalSource, NoApprovals
from claw.tui.screens.approval_screen import ApprovalScreen
from claw.tui.screens.chat_screen import ChatScreen
from claw.tui.themes import THEMES, theme_name
from claw.vocab.session_keys import normalize_session_key

if TYPE_CHECKING:
    from claw.tools.base import ApprovalRequest, Decision

log = logging.getLogger(__name__)

Connect = Callable[[], Awaitable[tuple[GatewayClient, ApprovalSource]]]


class ClawApp(App[None]):
    """The console. The chat screen stays at the bottom of the stack; editors and modals stack on top."""

    CSS_PATH = "claw.tcss"
    TITLE = "claw"
    COMMAND_PALETTE_BINDING = "f1"  # Ctrl+P picks a session, as in OpenClaw's TUI

    def __init__(
        self,
        client: GatewayClient | None,
        *,
        connect: Connect | None = None,
        agent_id: str = "main",
        session_key: str | None = None,
        model: str | None = None,
        approvals: ApprovalSource | None = None,
        theme: str | None = None,
        services_notice: str | None = None,
        typed_ahead: str = "",
    ) -> None:
        super().__init__()
        if client is None and connect is None:
            raise ValueError("give the app a client, or a way to connect")
        self.client = client
        self.approvals = approvals or NoApprovals()
        self.connect_error: ClawError | None = None
        """Why the connection could not be opened (the app then exits; the CLI reports it)."""
        self._connect = connect
        key = normalize_session_key(session_key or "main", agent_id)
        self.chat = ChatScreen(
            agent_id=agent_id,
            session_key=key,
            model=model,
            services_notice=services_notice,
            typed_ahead=typed_ahead,
        )
        self._theme_choice = theme_name(theme)

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        try:
            self.theme = self._theme_choice
        except Exception:  # an unknown name from the environment must not stop the console
            log.warning("unknown theme %r; using the default", self._theme_choice)
        # Pushed rather than returned by `get_default_screen`: only pushed screens get their CSS_PATH loaded.
        self.push_screen(self.chat)
        if self.client is not None:
            self._attach_gateway(self.client, self.approvals)
        else:
            self.call_after_refresh(self.open_connection)  # the first frame before the gateway's start-up

    @work(exclusive=True, group="connection", exit_on_error=False)
    async def open_connection(self) -> None:
        assert self._connect is not None
        try:
            client, approvals = await self._connect()
        except ClawError as exc:
            self.connect_error = exc
            self.exit(return_code=exc.exit_code)
            return
        except Exception as exc:  # a bug: the traceback goes to the log, the user gets one line
            log.exception("could not open the gateway connection")
            self.connect_error = ClawError(f"could not start the gateway: {type(exc).__name__}: {exc}")
            self.exit(return_code=1)
            return
        self.client, self.approvals = client, approvals
        self._attach_gateway(client, approvals)

    def _attach_gateway(self, client: GatewayClient, approvals: ApprovalSource) -> None:  # not `_attach`: Textual's
        approvals.attach(self.ask_approval)
        self.chat.attach(client)

    def on_unmount(self) -> None:
        self.approvals.detach()

    async def ask_approval(self, request: ApprovalRequest) -> Decision:
        """Show the approval modal and wait for the answer; the run waits with us.

        A remote client asks from its own reader task, outside the app's context, so the
        screen work is scheduled onto the app's message loop with `call_later`."""
        answered: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        modal = ApprovalScreen(request)
        asked_at = time.monotonic()  # the wait is the exec card's to show, apart from its run time

        def done(decision: str | None) -> None:
            if not answered.done():
                answered.set_result(decision if decision in ("allow-once", "allow-always") else "deny")  # type: ignore[arg-type]

        def show() -> None:
            self.chat.status.approvals += 1
            self.chat.approval_asked(request, asked_at)
            self.push_screen(modal, callback=done)

        def hide(answered_at: float) -> None:
            self.chat.status.approvals -= 1
            self.chat.approval_answered(request, asked_at, answered_at)
            if self.screen is modal:  # the run ended (aborted) before the user answered
                modal.dismiss("deny")

        self.call_later(show)
        try:
            return await answered
        finally:
            self.call_later(hide, time.monotonic())


def make_app(
    client: GatewayClient | None = None,
    *,
    connect: Connect | None = None,
    agent_id: str = "main",
    session_key: str | None = None,
    model: str | None = None,
    approvals: ApprovalSource | None = None,
    theme: str | None = None,
    services_notice: str | None = None,
    typed_ahead: str = "",
) -> ClawApp:
    """The console around `client` (an in-process `LocalClient` or a `RemoteClient`), or around the
    client that `connect()` returns once the app is on screen. `typed_ahead`: what the user typed before
    (`claw.tui.typeahead`), kept in the prompt, each complete line sent once the console is ready."""
    return ClawApp(
        client,
        connect=connect,
        agent_id=agent_id,
        session_key=session_key,
        model=model,
        approvals=approvals,
        theme=theme,
        services_notice=services_notice,
        typed_ahead=typed_ahead,
    )
