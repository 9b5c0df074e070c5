"""Going back to one of your messages: `/fork` with no number (pick where to branch) and `/rewrite`
(say something else at an earlier message and run from there).

What was said is never changed. Rewriting your last message is `/retry TEXT`: that exchange is undone (the
transcript keeps it) and the new text sent in the same session. Rewriting an earlier one forks the session
just before it, with the `before` point `sessions.forkPoints` gives (which also leaves out any undone
exchange right before it), and sends the new text there: the original keeps its later turns, and the
console switches to the fork. Rewriting the first message, when others follow it, has nothing before it to
copy, so it starts an empty session instead (`sessions.fork` keeps at least one message).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, Protocol

from textual.worker import Worker, WorkerCancelled, WorkerFailed

from claw.errors import UsageError
from claw.tui.chat_host import ChatSession
from claw.tui.fork_picker import MessagePickerScreen, edit_choices, fork_choices

if TYPE_CHECKING:
    from textual.app import App

    from claw.tui.widgets.input.prompt_area import PromptArea

EDIT_USAGE = "/rewrite [N [TEXT]]: pick one of your messages (or message N) and send TEXT in its place"


class _Host(ChatSession, Protocol):
    prompt: PromptArea

    @property
    def app(self) -> App[Any]: ...

    def load_session(self, session_key: str, *, notice: str | None = None) -> object: ...


class _Commands(Protocol):
    """What is used of `ConsoleCommands` (named by shape: it imports this module)."""

    @property
    def host(self) -> _Host: ...

    async def run(self, name: str, args: str) -> None: ...

    async def cmd_retry(self, args: str) -> None: ...


class ForkCommands:
    """The picking and editing behind `/fork` and `/rewrite`, for the console's `ConsoleCommands`."""

    def __init__(self, commands: _Commands) -> None:
        self.commands = commands
        self.host = commands.host

    async def points(self) -> list[dict[str, Any]]:
        """This session's user messages (oldest first) with the forks around each."""
        host = self.host
        found = await host.api.call("sessions.forkPoints", agentId=host.agent_id, sessionKey=host.session_key)
        return list(found["points"])

    async def pick_fork(self) -> None:
        """Open the picker of messages to fork after; the one picked runs as `/fork N`."""
        choices = fork_choices(await self.points())
        if not choices:
            raise UsageError("nothing to fork yet: no finished exchange in this session")

        async def picked(number: int | None) -> None:
            if number is not None:
                await self.commands.run("fork", str(number))

        screen = MessagePickerScreen("Fork after which message?", choices, number_label="fork at")
        self.host.app.push_screen(screen, callback=picked)

    async def edit(self, args: str) -> None:
        """`/rewrite`: pick a message (its text goes to the prompt to edit); `/rewrite N`: that one's
        text to the prompt; `/rewrite N TEXT`: send TEXT in place of message N."""
        words = args.strip().split(None, 1)
        head, rest = (words + ["", ""])[:2]
        if head and not head.isdigit():
            raise UsageError(EDIT_USAGE)
        points = await self.points()
        if not points:
            raise UsageError("nothing to edit yet: you have not said anything in this session")
        if not head:
            self._pick_to_edit(points)
            return
        point = next((p for p in points if p["number"] == int(head)), None)
        if point is None:
            numbers = ", ".join(str(p["number"]) for p in points[-5:])
            raise UsageError(f"message {head} is not one of yours here (yours, latest: {numbers}); /rewrite picks")
        text = rest.strip()
        if not text:
            await self._prefill(point)
        elif point is points[-1]:
            await self.commands.cmd_retry(text)
        else:
            await self._run_in_fork(point, text)

    def _pick_to_edit(self, points: list[dict[str, Any]]) -> None:
        async def picked(number: int | None) -> None:
            if number is not None:
                await self.commands.run("rewrite", str(number))  # its text to the prompt, to edit

        screen = MessagePickerScreen("Edit which message?", edit_choices(points), number_label="message")
        self.host.app.push_screen(screen, callback=picked)

    async def _prefill(self, point: dict[str, Any]) -> None:
        """Put `/rewrite N <its whole text>` in the prompt: edit it, Enter runs it."""
        host = self.host
        history = await host.api.call("chat.history", agentId=host.agent_id, sessionKey=host.session_key, limit=0)
        entry: dict[str, Any] = next((e for e in history["messages"] if e.get("id") == point["entryId"]), {})
        said = entry.get("display") or entry.get("content") or point.get("preview") or ""
        host.prompt.input.set_text(f"/rewrite {point['number']} {said}")
        host.prompt.input.focus()

    async def _run_in_fork(self, point: dict[str, Any], text: str) -> None:
        from claw.tui.widgets.input.chat_input import ChatInput

        host, number, before = self.host, point["number"], point["before"]
        if before is None:
            raise UsageError(f"cannot branch just before message {number}: the turn before it never ended")
        if before == 0:
            key = f"agent:{host.agent_id}:fork:{secrets.token_hex(4)}"
            notice = f"Message {number} was the first in {host.session_key}: {key} starts afresh with your edit."
        else:
            row = await host.api.call("sessions.fork", agentId=host.agent_id, sessionKey=host.session_key, at=before)
            key = row["key"]
            notice = f"Forked {host.session_key} before message {number} (it is untouched): this is {key}."
        loading = host.load_session(key, notice=notice)
        if isinstance(loading, Worker):
            try:
                await loading.wait()  # the fork on screen before the run, or its view would be replaced
            except (WorkerCancelled, WorkerFailed):
                return  # (a failed load says so itself; a cancelled one gave way to another session)
        host.prompt.post_message(ChatInput.Submitted(text))  # bubbles up to the screen, as Enter would
