"""Whether `exec` may run a command: allow, deny (with the reason) or ask the user first.

Pure logic over the command text, `ExecSettings` and the allowlist; the only
outside fact it consults is where a binary lives (`shutil.which` over the PATH
the command will run with). Allowlist patterns are case-insensitive globs over
*resolved* binary paths: a bare basename such as `ls` is ignored, so an
allowlist entry can never be satisfied by whatever `ls` happens to come first on
PATH. Every segment of a chain must match, and command substitution,
redirections, subshells, leading `VAR=value` assignments and wrapper binaries
(`env`, `sudo`, `xargs`, …) are always a miss — never an automatic allow.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from claw.config import ExecSettings
from claw.tools.shell_chain import split_chain

Action = Literal["allow", "deny", "ask"]

# Binaries whose job is to run another command named in their arguments.
WRAPPERS = frozenset(
    {
        "env",
        "nice",
        "nohup",
        "timeout",
        "stdbuf",
        "setsid",
        "xargs",
        "sudo",
        "doas",
        "su",
        "runuser",
        "busybox",
        "ionice",
        "chrt",
        "taskset",
        "chroot",
        "flock",
        "unshare",
        "nsenter",
        "script",
        "time",
    }
)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class AllowlistMatch:
    """Whether every segment of a command matched the allowlist; `reason` says why not."""

    ok: bool
    reason: str


@dataclass(frozen=True, slots=True)
class ExecVerdict:
    """The policy's answer for one command."""

    action: Action
    reason: str
    allowlisted: bool = False


def resolve_binary(word: str, *, cwd: Path, path_env: str | None) -> str | None:
    """The real path of the executable `word` names, as the shell would find it, or None."""
    if "/" in word:
        candidate = Path(word) if os.path.isabs(word) else cwd / word
        found = str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None
    else:
        found = shutil.which(word, path=path_env if path_env is not None else os.defpath)
    return os.path.realpath(found) if found else None


def match_allowlist(command: str, patterns: Sequence[str], *, cwd: Path, path_env: str | None) -> AllowlistMatch:
    """Check every segment of `command` against the allowlist `patterns`."""
    chain = split_chain(command)
    if chain.hazard is not None:
        return AllowlistMatch(False, chain.hazard)
    usable = [p.strip() for p in patterns if "/" in p]
    for argv in chain.segments:
        word = argv[0]
        if _ASSIGNMENT.match(word):
            return AllowlistMatch(False, f"environment assignment {word.split('=', 1)[0]}=")
        binary = resolve_binary(word, cwd=cwd, path_env=path_env)
        if binary is None:
            return AllowlistMatch(False, f"{word}: no such executable")
        if os.path.basename(word) in WRAPPERS:
            return AllowlistMatch(False, f"{word} runs other commands")
        if not any(_pattern_matches(p, word, binary, cwd=cwd, path_env=path_env) for p in usable):
            return AllowlistMatch(False, f"{binary} is not in the allowlist")
    return AllowlistMatch(True, "allowlisted")


def decide(
    command: str, settings: ExecSettings, patterns: Sequence[str], *, cwd: Path, path_env: str | None
) -> ExecVerdict:
    """Apply `security` × `ask` to `command`."""
    if settings.security == "deny":
        return ExecVerdict("deny", "exec is disabled (security=deny)")
    match = match_allowlist(command, patterns, cwd=cwd, path_env=path_env)
    if settings.ask == "always":
        return ExecVerdict("ask", "approval is required for every command (ask=always)", match.ok)
    if settings.security == "full":
        return ExecVerdict("allow", "security=full", match.ok)
    if match.ok:
        return ExecVerdict("allow", match.reason, True)
    if settings.ask == "on-miss":
        return ExecVerdict("ask", f"allowlist miss ({match.reason})")
    return ExecVerdict("deny", f"allowlist miss ({match.reason})")


def fallback(verdict: ExecVerdict, settings: ExecSettings) -> ExecVerdict:
    """What an `ask` verdict becomes when nobody is available to answer (`ask_fallback`)."""
    if verdict.action != "ask":
        return verdict
    mode = settings.ask_fallback
    if mode == "full" or (mode == "allowlist" and verdict.allowlisted):
        return ExecVerdict("allow", f"askFallback={mode}", verdict.allowlisted)
    return ExecVerdict("deny", f"{verdict.reason}; askFallback={mode}", verdict.allowlisted)


def pattern_for(command: str, *, cwd: Path, path_env: str | None) -> str | None:
    """The allowlist pattern that "allow always" records: the resolved binary of the first segment."""
    chain = split_chain(command)
    if chain.hazard is not None or _ASSIGNMENT.match(chain.segments[0][0]):
        return None
    return resolve_binary(chain.segments[0][0], cwd=cwd, path_env=path_env)


def _pattern_matches(pattern: str, word: str, binary: str, *, cwd: Path, path_env: str | None) -> bool:
    candidates = {binary.lower()}
    found = shutil.which(word, path=path_env) if "/" not in word else None
    if found:
        candidates.add(os.path.abspath(found).lower())  # the PATH entry, before symlinks are resolved
    return any(fnmatch.fnmatchcase(c, form) for form in _pattern_forms(pattern) for c in candidates)


def _pattern_forms(pattern: str) -> set[str]:
    """The pattern, plus the same pattern with its directory part resolved when that part has no glob."""
    forms = {pattern.lower()}
    directory, name = os.path.split(os.path.expanduser(pattern))
    if os.path.isabs(directory) and not _has_magic(directory):
        forms.add(os.path.join(os.path.realpath(directory), name).lower())
        if not _has_magic(name):
            forms.add(os.path.realpath(os.path.join(directory, name)).lower())
    return forms


def _has_magic(text: str) -> bool:
    return any(ch in text for ch in "*?[")
