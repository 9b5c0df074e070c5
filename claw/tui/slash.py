"""Slash commands as the console knows them: which it handles itself, which go to the gateway,
and what the completion popup offers.

The gateway handles `/new /reset /stop /status` (and whatever later capabilities register,
reported by the `commands.list` method); the console handles the rest locally. Anything
else whose first word is `/name` goes to the gateway, which answers an unknown name with an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One command: its name (without `/`), a one-line description, an argument hint."""

    name: str
    description: str
    args: str = ""
    local: bool = True
    """True: the console runs it; False: it is sent to the gateway as a message."""

    @property
    def usage(self) -> str:
        return f"/{self.name}" + (f" {self.args}" if self.args else "")


CONSOLE_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("new", "start a new session (the old transcript is archived)", local=False),
    SlashCommand("reset", "same as /new", local=False),
    SlashCommand("stop", "abort the running turn and anything queued", local=False),
    SlashCommand("status", "session, model, tokens, run state", local=False),
    SlashCommand("model", "show or switch this session's model", "[provider/model | default]"),
    SlashCommand("sessions", "pick a session (also Ctrl+P)"),
    SlashCommand("session", "switch to a session by key (a new key starts one)", "<key>"),
    SlashCommand("edit", "edit a workspace file", "soul|agents|tools|identity|user|memory"),
    SlashCommand("resume", "pick a session to resume: search what was said, preview it"),
    SlashCommand(
        "fork",
        "copy this session into a new one and switch to it: pick a message, N keeps the "
        "first N messages, all keeps them all",
        "[N|all]",
    ),
    SlashCommand("undo", "take the last exchange out of the model's history (the transcript keeps it)"),
    SlashCommand("retry", "undo the last exchange and send its message again, or TEXT instead", "[text]"),
    SlashCommand(
        "rewrite",
        "pick one of your messages, change it and run from there (a fork unless it is the last)",
        "[N [text]]",
    ),
    SlashCommand("export", "write this session to a file (--format md|jsonl|html), tool calls included", "[path]"),
    SlashCommand("theme", "switch between the light and dark theme (F1 lists every theme)"),
    SlashCommand("help", "commands and keys"),
    SlashCommand("quit", "leave the console (also Ctrl+D)"),
)


class SlashCatalog:
    """The console's commands plus those the gateway reports, for dispatch and completion."""

    def __init__(self, gateway_commands: list[dict[str, Any]] | None = None) -> None:
        commands = {c.name: c for c in CONSOLE_COMMANDS}
        for row in gateway_commands or []:
            name = str(row.get("name", "")).lstrip("/")
            if name and name not in commands:
                commands[name] = SlashCommand(name, str(row.get("description", "")), local=False)
        self._commands = commands

    @property
    def commands(self) -> list[SlashCommand]:
        return list(self._commands.values())

    def get(self, name: str) -> SlashCommand | None:
        return self._commands.get(name)

    def complete(self, text: str) -> list[SlashCommand]:
        """Commands whose name starts with what follows `/` in a one-word input; [] otherwise."""
        if not text.startswith("/") or any(ch.isspace() for ch in text):
            return []
        prefix = text[1:].lower()
        found = [c for c in self._commands.values() if c.name.startswith(prefix)]
        return sorted(found, key=lambda c: c.name != prefix)  # an exact name first
