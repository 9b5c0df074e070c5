"""Edit text in the user's `$VISUAL` / `$EDITOR`, with the app suspended while the editor has the terminal."""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

log = logging.getLogger(__name__)


def editor_command() -> list[str]:
    """The editor as argv: `$VISUAL`, else `$EDITOR` (either may carry flags, e.g. `code --wait`), else vi."""
    raw = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return shlex.split(raw)


def edit_in_editor(app: App[object], text: str) -> str | None:
    """The text as the editor left it, or None if editing failed or was impossible here."""
    fd, name = tempfile.mkstemp(prefix="claw-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        command = [*editor_command(), str(path)]
        try:
            with app.suspend():
                # The app is suspended: the editor owns the terminal until it exits.
                done = subprocess.run(command, check=False)
        except SuspendNotSupported:
            app.notify("This terminal cannot hand over to an editor.", severity="warning")
            return None
        except OSError as exc:
            app.notify(f"Could not start {command[0]}: {exc.strerror}", severity="error")
            return None
        if done.returncode != 0:
            app.notify(f"{command[0]} exited with {done.returncode}; prompt unchanged.", severity="warning")
            return None
        return path.read_text(encoding="utf-8")
    finally:
        try:
            path.unlink()
        except OSError:
            log.warning("could not remove %s", path)
