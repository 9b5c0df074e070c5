"""A quick look at what a skill carries before it is installed: scripts, and obvious droppers.

Skills are trusted code once installed. This is a heuristic to make the operator look,
not a sandbox: it lists files that can run, and flags the pattern behind the ClawHavoc
incident (downloaded or decoded text piped straight into a shell).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

SCRIPT_SUFFIXES = frozenset(
    {".sh", ".bash", ".zsh", ".fish", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".ps1", ".bat", ".cmd"}
)
_DROPPERS = (
    (re.compile(r"base64\s+(-d|--decode|-D)\b[^\n]*\|\s*(ba|z)?sh\b"), "pipes base64-decoded text into a shell"),
    (re.compile(r"(curl|wget)\b[^\n|]*\|\s*(sudo\s+)?(ba|z)?sh\b"), "pipes a download straight into a shell"),
    (re.compile(r"\beval\s*\(?\s*\$?\(?\s*(curl|wget)\b"), "evaluates downloaded text"),
    (re.compile(r"(?i)zip\s+password|password[- ]protected\s+(zip|archive)"), "ships a password-protected archive"),
)


def scripts_in(directory: Path, limit: int = 20) -> list[str]:
    """Relative paths of files that look runnable: a script suffix, an executable bit, or a `#!` line."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if _runnable(path):
                found.append(str(path.relative_to(directory)))
                if len(found) >= limit:
                    return found
    return found


def _runnable(path: Path) -> bool:
    try:
        st = path.lstat()
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    if path.suffix.lower() in SCRIPT_SUFFIXES or st.st_mode & 0o111:
        return True
    try:  # no link followed, no FIFO swapped in since the lstat waited on: a workspace skill is the agent's
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        try:
            return handle.read(2) == b"#!"
        except OSError:
            return False


def dropper_findings(text: str) -> list[str]:
    """One line per suspicious pattern in `text`: `line N: what it does`."""
    findings = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, what in _DROPPERS:
            if pattern.search(line):
                findings.append(f"line {number}: {what}")
    return findings
