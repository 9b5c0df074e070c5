"""When a `git` invocation can run a program that is not git itself, or reach past the workspace.

An entry that allows `/usr/bin/git` is meant for `git status`, `git log`, `git diff`. These
forms go further, so they never match such an entry and need an exact-command approval:

- `-c name=value` / `--config-env`: configuration can run anything (`alias.x=!cmd`,
  `core.pager`, `core.sshCommand`, `core.fsmonitor`, `diff.external`, filters…).
- a subcommand that is not a built-in git command: it is an alias (which may be `!cmd`)
  or an external `git-<name>` program found on the exec path or PATH.
- `--exec-path=dir`: git runs its helper programs from `dir`.
- `-C dir`, `--git-dir`, `--work-tree` outside the workspace (or not checkable).
- built-ins whose job is to run a given command or tool: `submodule foreach`, `bisect run`,
  `rebase -x/--exec/-i`, `difftool`, `mergetool`, `filter-branch`, `--upload-pack`/
  `--receive-pack`/`--exec` (the remote side's program), `grep -O`, `config` writes
  (an alias or core.fsmonitor set now runs later), `--template` (hooks), `help` pages
  and `--help` (a configured viewer), `hook`, `daemon`, `send-email`, `credential`.

Not covered, and said so: a repository's own `.git/config` can set the same hooks
(`core.fsmonitor`, `core.hooksPath`, `diff.external`) for a plain `git status`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from claw.tools.option_scan import find_long, find_short


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


BUILTINS = _names(
    "add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore check-mailmap "
    "check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit commit-graph "
    "commit-tree config count-objects describe diff diff-files diff-index diff-tree fetch fetch-pack "
    "fmt-merge-msg for-each-ref format-patch fsck gc get-tar-commit-id grep hash-object help index-pack init "
    "interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base "
    "merge-file merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects pack-refs prune "
    "prune-packed pull push range-diff read-tree rebase reflog remote repack replace rerere reset restore "
    "rev-list rev-parse revert rm shortlog show show-branch show-index show-ref sparse-checkout stash "
    "status stripspace submodule switch symbolic-ref tag unpack-file unpack-objects update-index update-ref "
    "update-server-info var verify-commit verify-pack verify-tag version whatchanged worktree write-tree"
)
"""Built-in commands (git 2.39) that git runs itself; an alias can never replace one."""

_RUNNERS = {
    "difftool": "git difftool runs an external diff tool",
    "mergetool": "git mergetool runs an external merge tool",
    "filter-branch": "git filter-branch runs the shell filters it is given",
    "hook": "git hook runs the repository's hook programs",
    "daemon": "git daemon serves the repository and runs --access-hook",
    "send-email": "git send-email runs a mail program",
    "credential": "git credential runs credential helpers",
    "instaweb": "git instaweb starts a web server and a browser",
}
_OPTIONS_ALONE = _names(
    "-p --paginate -P --no-pager --bare --no-replace-objects --literal-pathspecs --glob-pathspecs "
    "--noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice --version --help "
    "--html-path --man-path --info-path --exec-path"
)
_OPTIONS_WITH_VALUE = frozenset({"--namespace", "--list-cmds", "--attr-source"})
_PLACES = frozenset({"-C", "--git-dir", "--work-tree"})

OutsideCheck = Callable[[str, Path], str | None]
"""Given a directory word and the directory it is relative to: why it is outside the workspace, or None."""


def git_danger(args: Sequence[str], cwd: Path, outside: OutsideCheck) -> str | None:
    """Why this `git` invocation is more than plain git in the workspace, or None."""
    here, i = cwd, 0
    while i < len(args) and args[i].startswith("-"):
        word = args[i]
        name, eq, value = word.partition("=")
        if word == "-c" or name == "--config-env" or (word.startswith("-c") and not word.startswith("--")):
            return "git -c sets configuration, and configuration can run any program (alias.x=!cmd, core.pager…)"
        if name == "--exec-path" and eq:
            return "git --exec-path=… makes git run its helper programs from another directory"
        if name == "--help" and i + 1 < len(args):
            return "git --help <command> opens a manual page with a configured viewer program"
        if name in _PLACES or word.startswith("-C"):
            label = "-C" if word.startswith("-C") else name
            place = value if eq else word[2:] if label == "-C" and len(word) > 2 else None
            if place is None:
                i += 1
                place = args[i] if i < len(args) else ""
            reason = outside(place, here)
            if reason is not None:
                return f"git {label} {place}: {reason}"
            if label == "-C":
                here = here / place
        elif name in _OPTIONS_WITH_VALUE:
            i += not eq
        elif word not in _OPTIONS_ALONE:
            return f"git option {word} is not one this check knows"
        i += 1
    if i >= len(args):
        return None
    return _subcommand_danger(args[i], args[i + 1 :])


def _subcommand_danger(command: str, rest: Sequence[str]) -> str | None:
    if command in _RUNNERS:
        return _RUNNERS[command]
    if command not in BUILTINS:
        return (
            f"git {command} is not a built-in git command: it is an alias (which can run any program) "
            f"or an external git-{command} program"
        )
    if find_long(rest, ("upload-pack", "receive-pack", "exec")) or (
        command in ("clone", "ls-remote") and find_short(rest, "u", values="bo")
    ):
        return f"git {command} --upload-pack/--receive-pack/--exec names a program to run"
    if command == "clone" and (find_long(rest, ("config",)) or find_short(rest, "c", values="bou")):
        return "git clone -c sets configuration in the new repository, and configuration can run any program"
    if find_long(rest, ("template",)):
        return f"git {command} --template copies in hooks that git runs later"
    if "--help" in rest or (command == "help" and any(not a.startswith("-") for a in rest)):
        return "git help opens a manual page with a configured viewer program"
    operands = [a for a in rest if not a.startswith("-")]
    if command == "submodule" and "foreach" in operands:
        return "git submodule foreach runs a shell command in each submodule"
    if command == "bisect" and operands[:1] == ["run"]:
        return "git bisect run runs the command it is given"
    if command == "rebase" and (find_long(rest, ("exec", "interactive", "edit-todo")) or find_short(rest, "xi")):
        return "git rebase -x/--exec/-i runs commands or an editor"
    if command == "grep" and (find_long(rest, ("open-files-in-pager",)) or find_short(rest, "O", values="efm")):
        return "git grep -O runs a pager program"
    if command == "config" and not _reads_config(rest):
        return "git config can set configuration (an alias, core.fsmonitor) that runs a program later"
    if _opens_editor(command, rest, operands):
        return f"git {command} opens an editor program for the message"
    return None


def _opens_editor(command: str, rest: Sequence[str], operands: Sequence[str]) -> bool:
    """Forms that start core.editor/$EDITOR even without a terminal."""
    if command == "add":
        return bool(find_long(rest, ("edit", "interactive", "patch")) or find_short(rest, "eip"))
    if find_long(rest, ("edit",)) or (command != "notes" and find_short(rest, "e", values="mFC")):
        return command in ("commit", "tag", "notes", "cherry-pick", "revert", "merge", "pull")
    given = bool(find_long(rest, ("message", "file", "reuse-message", "no-edit")) or find_short(rest, "mFC"))
    if command == "commit":
        return not given or bool(find_long(rest, ("reedit-message",)) or find_short(rest, "c", values="mFC"))
    if command == "tag":
        return not given and bool(find_long(rest, ("annotate", "sign", "local-user")) or find_short(rest, "asu"))
    if command == "notes":
        return not given and operands[:1] in (["add"], ["append"], ["edit"])
    return False


def _reads_config(rest: Sequence[str]) -> bool:
    """`git config --get…`, `--list`, `get`, `list`: the read-only forms."""
    reads = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list"}
    writes = {"--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section",
              "--edit", "-e", "set", "unset", "edit", "rename-section", "remove-section"}  # fmt: skip
    words = set(rest)
    return bool(words & reads) and not words & writes
