"""The slash commands the console runs itself: /model /sessions /session /resume /fork /undo /retry
/rewrite /edit /export /theme /help /quit.

(`/new /reset /stop /status` and the commands later capabilities register go to the gateway.)
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from claw.errors import ClawError
from claw.tui.chat_host import ChatSession
from claw.tui.format import short_key
from claw.tui.session_model import effective_model
from claw.tui.slash import CONSOLE_COMMANDS
from claw.tui.themes import opposite

if TYPE_CHECKING:
    from textual.app import App

    from claw.tui.widgets.conversation.conversation import Conversation
    from claw.tui.widgets.input.prompt_area import PromptArea
    from claw.tui.widgets.status.status_bar import StatusBar

KEYS = (
    ("Enter", "send"),
    ("Shift+Enter / Ctrl+J", "new line"),
    ("Up / Down", "earlier inputs"),
    ("Ctrl+G", "edit the prompt in $EDITOR"),
    ("Esc", "abort the turn (from the moment it is sent); close the / popup"),
    ("Ctrl+O", "expand / collapse tool output"),
    ("Tab, then x", "stop the subagent on the focused row"),
    ("Ctrl+B / Ctrl+T", "sessions sidebar / run-events pane"),
    ("Ctrl+P", "pick a session"),
    ("F2", "edit a workspace file (SOUL.md, AGENTS.md, …)"),
    ("F1", "command palette (themes, …)"),
    ("Ctrl+C", "abort the turn; when idle, clear the input (twice: quit)"),
    ("Ctrl+D", "quit"),
)


class CommandsHost(ChatSession, Protocol):
    """What the commands use of the chat screen: the panes they answer in, its app (theme, quit), its
    session switching and its editor."""

    conversation: Conversation
    prompt: PromptArea
    status: StatusBar

    @property
    def app(self) -> App[Any]: ...

    def load_session(self, session_key: str, *, notice: str | None = None) -> object: ...

    def refresh_counters(self) -> object: ...

    def action_pick_session(self) -> None: ...

    def open_editor(self, name: str) -> None: ...


class ConsoleCommands:
    """Runs one local command against the chat screen it belongs to."""

    def __init__(self, host: CommandsHost) -> None:
        self.host = host

    async def run(self, name: str, args: str) -> None:
        handler = getattr(self, f"cmd_{name}", None)
        if handler is None:
            await self._say(f"/{name} is not available here.", "error")
            return
        try:
            await handler(args)
        except ClawError as exc:
            await self._say(f"✗ {exc.message}", "error")

    async def _say(self, text: str, kind: str = "info") -> None:
        await self.host.conversation.add_notice(text, kind)  # type: ignore[arg-type]

    async def cmd_model(self, args: str) -> None:
        """Show or set the model stored with the session on screen (`sessions.patch`): the gateway uses it
        for every turn of that session, whichever client sends it; `/model default` clears it."""
        host = self.host
        words = args.split()
        if not words:
            await self._say(self._describe_model())
            return
        if len(words) > 1:
            await self._say("✗ one model ref, e.g. /model openai/gpt-4o-mini (or /model default)", "error")
            return
        ref = None if words[0].lower() in ("default", "-") else words[0]
        patched = await host.api.call("sessions.patch", agentId=host.agent_id, key=host.session_key, model=ref)
        stored = patched["entry"].get("modelOverride")
        host.session_model = stored
        host.has_model = bool(stored or host.agent_models)
        host.status.model = effective_model(stored, host.agent_models)
        host.refresh_counters()  # the window, and so the context gauge, goes with the model
        if stored:
            await self._say(f"Model for this session: {stored}. /model default goes back to the agent's.")
        else:
            await self._say(f"Model for this session: the agent's ({host.status.model or 'none configured'}).")

    def _describe_model(self) -> str:
        host = self.host
        current = effective_model(host.session_model, host.agent_models) or "none"
        source = "chosen for this session" if host.session_model else "the agent's"
        chain = ", ".join(host.agent_models) or "none configured"
        return (
            f"Model for this session: {current} ({source}).\n"
            f"Choices: the agent's models ({chain}), or any provider/model ref.\n"
            "/model REF switches this session; /model default goes back to the agent's."
        )

    async def cmd_sessions(self, args: str) -> None:
        self.host.action_pick_session()

    async def cmd_session(self, args: str) -> None:
        from claw.vocab.session_keys import normalize_session_key

        if not args:
            await self._say(f"Session: {self.host.session_key}. Switch with /session KEY or Ctrl+P.")
            return
        self.host.load_session(normalize_session_key(args.split()[0], self.host.agent_id))

    async def cmd_edit(self, args: str) -> None:
        from claw.workspace import BOOTSTRAP_NAMES, resolve_name  # (pydantic, through config: not at start-up)

        if not args:
            await self._say("Edit which file? /edit " + "|".join(BOOTSTRAP_NAMES))
            return
        self.host.open_editor(resolve_name(args.split()[0]))

    async def cmd_resume(self, args: str) -> None:
        """The resume picker (search and preview); the session picked opens here."""
        from claw.tui.session_picker import SessionPickerScreen

        host = self.host

        def opened(key: str | None) -> None:
            if key:
                host.load_session(key)

        host.app.push_screen(SessionPickerScreen(host.api, host.agent_id), callback=opened)

    async def cmd_fork(self, args: str) -> None:
        """Copy this session (up to message N, or all of it) into a new one and switch to it; with no
        argument, pick the message to fork after (`claw.tui.fork_commands`)."""
        from claw.tui.fork_commands import ForkCommands

        host = self.host
        words = args.split()
        if not words:
            await ForkCommands(self).pick_fork()
            return
        if len(words) > 1 or not (words[0].isdigit() or words[0].lower() == "all"):
            await self._say("✗ /fork [N|all]: pick a message, keep the first N messages, or all of them", "error")
            return
        params: dict[str, Any] = {"at": int(words[0])} if words[0].isdigit() else {}
        row = await host.api.call("sessions.fork", agentId=host.agent_id, sessionKey=host.session_key, **params)
        notice = f"Forked {host.session_key} at message {row['forkedAt']}: this is {row['key']}."
        host.load_session(row["key"], notice=notice)

    async def cmd_undo(self, args: str) -> None:
        """Take the last exchange out of what the model is sent (the transcript keeps it, marked undone)."""
        host = self.host
        done = await host.api.call("sessions.undo", agentId=host.agent_id, sessionKey=host.session_key)
        notice = (
            f"Undid the last exchange ({done['undone']} messages): the model will not see it again. "
            "It stays in the transcript, marked undone."
        )
        host.load_session(host.session_key, notice=notice)  # the conversation shown without it

    async def cmd_retry(self, args: str) -> None:
        """Run the last message again, or TEXT in its place: the last exchange is undone (kept in the
        transcript) and the message sent as a new turn, so the model answers from the same history."""
        from claw.tui.widgets.input.chat_input import ChatInput

        host = self.host
        done = await host.api.call("sessions.undo", agentId=host.agent_id, sessionKey=host.session_key)
        text = args.strip()
        if not text:
            history = await host.api.call("chat.history", agentId=host.agent_id, sessionKey=host.session_key, limit=0)
            entries = history["messages"]
            start = next((i for i, e in enumerate(entries) if e.get("id") == done["fromId"]), len(entries))
            said: dict[str, Any] = next((e for e in entries[start:] if e.get("role") == "user"), {})
            text = str(said.get("display") or said.get("content") or "")
        if not text:
            await self._say("✗ nothing to run again: the undone exchange had no message text", "error")
            return
        await self._say(f"Running it again (the earlier exchange, {done['undone']} messages, is undone).")
        host.prompt.post_message(ChatInput.Submitted(text))  # bubbles up to the screen, as Enter would

    async def cmd_rewrite(self, args: str) -> None:
        """Say something else at one of your messages and run from there (a fork unless it is the last)."""
        from claw.tui.fork_commands import ForkCommands

        await ForkCommands(self).edit(args)

    async def cmd_export(self, args: str) -> None:
        host = self.host
        fmt, target = _export_args(args)
        if fmt is None:
            await self._say("✗ /export [--format md|jsonl|html] [path]", "error")
            return
        done = await host.api.call("sessions.export", agentId=host.agent_id, sessionKey=host.session_key, format=fmt)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        default = f"claw-{short_key(host.session_key).replace(':', '-')}-{stamp}.{fmt}"
        text, count = done["text"], done["entries"]
        try:
            path = await asyncio.to_thread(_write_export, target or default, default, text)
        except OSError as exc:
            await self._say(f"✗ could not write {exc.filename or args}: {exc.strerror}", "error")
            return
        await self._say(f"Exported {count} entries to {path}")

    async def cmd_theme(self, args: str) -> None:
        app = self.host.app
        app.theme = args.strip() or opposite(app.current_theme.dark)

    async def cmd_help(self, args: str) -> None:
        catalog = self.host.prompt.catalog
        width = max(len(c.usage) for c in catalog.commands)
        lines = ["Commands:"] + [f"  {c.usage.ljust(width)}  {c.description}" for c in catalog.commands]
        extra = [c for c in catalog.commands if c.name not in {k.name for k in CONSOLE_COMMANDS}]
        if extra:
            lines.append("  (the gateway also answers: " + " ".join(f"/{c.name}" for c in extra) + ")")
        lines += ["", "Keys:"] + [f"  {key.ljust(22)}  {what}" for key, what in KEYS]
        await self._say("\n".join(lines))

    async def cmd_quit(self, args: str) -> None:
        self.host.app.exit()


def _export_args(args: str) -> tuple[str | None, str]:
    """(format, path) from `/export [--format md|jsonl|html] [path]`; format None when they do not parse."""
    words, fmt = args.split(), "md"
    if words and words[0] in ("--format", "-f"):
        if len(words) < 2 or words[1] not in ("md", "jsonl", "html"):
            return None, ""
        fmt, words = words[1], words[2:]
    return fmt, " ".join(words)


def _write_export(target: str, default_name: str, text: str) -> Path:
    """Write `text` to `target` (a directory gets `default_name` inside it); the absolute path written.
    Made absolute before writing, so a failure names the full path too (`OSError.filename`)."""
    path = Path(target).expanduser().resolve()
    if path.is_dir():
        path = path / default_name
    path.write_text(text, encoding="utf-8")
    return path
