"""Whether `exec` may run a command: allow, deny (with the reason) or ask the user first.

Pure logic over the command text, `ExecSettings` and the allowlist; the outside facts it
consults are where a binary lives (`shutil.which` over the PATH the command will run
with) and, for globs and path arguments, the workspace's files. Every segment of a chain
must be covered, and command substitution, redirections, subshells and leading
`VAR=value` assignments are always a miss — never an automatic allow. A segment is
covered, in this order, by:

1. an exact entry: the same resolved binary with the same argument words, as written;
2. unless the invocation is one of the binary's dangerous forms (`command_rules.danger`:
   wrappers, interpreters, `git -c`, `find -exec`, …), which nothing else covers:
3. a plain entry, a case-insensitive glob over the *resolved* binary path (a bare basename
   such as `ls` is ignored, so an entry is never satisfied by whatever `ls` comes first);
4. the default allowlist of read-only commands, with its paths inside the workspace.

A miss says what "allow always" would remember (`ExecVerdict.remember`): the binary for a
plain miss, the exact command for a dangerous form (`exact_only`), nothing where neither
can be vouched for (a redirection, an assignment).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from claw.config import ExecSettings
from claw.tools.allow_entry import AllowEntry
from claw.tools.command_rules import danger, program_names
from claw.tools.default_allowlist import DefaultCommand, defaults_by_binary, leaves_workspace
from claw.tools.shell_chain import Word, split_chain

Action = Literal["allow", "deny", "ask"]

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class AllowlistMatch:
    """Whether every segment of a command is covered; if not, why, and what "allow always" would record."""

    ok: bool
    reason: str
    exact_only: bool = False
    """Some segment is a form that only an approval of the exact command can allow."""
    remember: tuple[AllowEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class ExecVerdict:
    """The policy's answer for one command."""

    action: Action
    reason: str
    allowlisted: bool = False
    exact_only: bool = False
    remember: tuple[AllowEntry, ...] = ()
    """The entries that "allow always" adds for this command (none: it can only be allowed once)."""


def resolve_binary(word: str, *, cwd: Path, path_env: str | None) -> str | None:
    """The real path of the executable `word` names, as the shell would find it, or None."""
    if "/" in word:
        candidate = Path(word) if os.path.isabs(word) else cwd / word
        found = str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None
    else:
        found = shutil.which(word, path=path_env if path_env is not None else os.defpath)
    return os.path.realpath(found) if found else None


def match_allowlist(
    command: str,
    entries: Sequence[str | AllowEntry],
    *,
    cwd: Path,
    path_env: str | None,
    defaults: Mapping[str, DefaultCommand] | None = None,
) -> AllowlistMatch:
    """Check every segment of `command` (run in the workspace `cwd`) against `entries` and `defaults`."""
    chain = split_chain(command)
    if chain.hazard is not None:
        return AllowlistMatch(False, chain.hazard)
    listed = [e if isinstance(e, AllowEntry) else AllowEntry(e.strip()) for e in entries]
    plain = [e.pattern for e in listed if not e.exact and "/" in e.pattern]
    exact = {(e.pattern, e.args) for e in listed if e.exact}
    misses: list[_Miss] = []
    for words in chain.words:
        miss = _segment_miss(words, plain, exact, defaults or {}, cwd=cwd, path_env=path_env)
        if miss is not None:
            misses.append(miss)
    if not misses:
        return AllowlistMatch(True, "allowlisted")
    exact_only = any(m.exact_only for m in misses)
    remember = tuple(m.remember for m in misses if m.remember is not None)
    if len(remember) < len(misses):  # one part can never be remembered: "always" allows just this once
        remember = ()
    return AllowlistMatch(False, misses[0].reason, exact_only, remember)


@dataclass(frozen=True, slots=True)
class _Miss:
    reason: str
    remember: AllowEntry | None
    exact_only: bool = False


def _segment_miss(
    words: tuple[Word, ...],
    plain: list[str],
    exact: set[tuple[str, tuple[str, ...] | None]],
    defaults: Mapping[str, DefaultCommand],
    *,
    cwd: Path,
    path_env: str | None,
) -> _Miss | None:
    head = words[0]
    if _ASSIGNMENT.match(head.text):
        return _Miss(f"environment assignment {head.text.split('=', 1)[0]}=", None)
    if head.expands:
        return _Miss(f"the shell expands the command name {head.raw!r}", None)
    binary = resolve_binary(head.text, cwd=cwd, path_env=path_env)
    if binary is None:
        return _Miss(f"{head.text}: no such executable", None)
    args = tuple(w.raw for w in words[1:])
    if (binary, args) in exact:
        return None
    exactly = AllowEntry(binary, args)
    why = danger(program_names(head.text, binary), words[1:], cwd)
    if why is not None:
        return _Miss(
            f"{why}; an allowlist entry for {binary} covers only its plain use, so only an approval of this "
            "exact command can allow it",
            exactly,
            exact_only=True,
        )
    if any(_pattern_matches(p, head.text, binary, path_env=path_env) for p in plain):
        return None
    default = defaults.get(binary)
    if default is not None and os.path.basename(head.text) == default.name:
        leaves = leaves_workspace(default, words[1:], cwd)
        if leaves is None:
            return None
        return _Miss(f"{leaves}; the default allowlist covers {default.name} only inside the workspace", exactly, True)
    return _Miss(f"{binary} is not in the allowlist", AllowEntry(binary))


def decide(
    command: str,
    settings: ExecSettings,
    entries: Sequence[str | AllowEntry],
    *,
    cwd: Path,
    path_env: str | None,
) -> ExecVerdict:
    """Apply `security` × `ask` to `command` with the allowlist `entries` (configured and remembered) and,
    unless `default_allowlist` is off, the default read-only commands."""
    if settings.security == "deny":
        return ExecVerdict("deny", "exec is disabled (security=deny)")
    defaults = defaults_by_binary(path_env, cwd) if settings.default_allowlist else {}
    match = match_allowlist(command, entries, cwd=cwd, path_env=path_env, defaults=defaults)
    if settings.ask == "always":
        why = "approval is required for every command (ask=always)" + ("" if match.ok else f"; {match.reason}")
        return ExecVerdict("ask", why, match.ok, match.exact_only, match.remember)
    if settings.security == "full":
        return ExecVerdict("allow", "security=full", match.ok)
    if match.ok:
        return ExecVerdict("allow", match.reason, True)
    if settings.ask != "on-miss":
        return ExecVerdict("deny", f"allowlist miss ({match.reason})", False, match.exact_only, match.remember)
    once = "" if match.remember else "; no allowlist entry can match it, so it can only be approved once"
    return ExecVerdict("ask", f"allowlist miss ({match.reason}){once}", False, match.exact_only, match.remember)


def fallback(verdict: ExecVerdict, settings: ExecSettings) -> ExecVerdict:
    """What an `ask` verdict becomes when nobody is available to answer (`ask_fallback`)."""
    if verdict.action != "ask":
        return verdict
    mode = settings.ask_fallback
    if mode == "full" or (mode == "allowlist" and verdict.allowlisted):
        return ExecVerdict("allow", f"askFallback={mode}", verdict.allowlisted)
    return ExecVerdict(
        "deny", f"{verdict.reason}; askFallback={mode}", verdict.allowlisted, verdict.exact_only, verdict.remember
    )


def _pattern_matches(pattern: str, word: str, binary: str, *, path_env: str | None) -> bool:
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
