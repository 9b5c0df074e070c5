"""Which invocations of a binary go further than an "allow this binary" entry may vouch for.

An allowlist entry that names only a binary is meant for that binary's plain use. Some
binaries can run *other* programs, or write where they like, through their arguments:
`git -c alias.x='!cmd' x`, `find -exec`, `sort --compress-program=sh`, `sed 'e cmd'`.
`danger` names such a form; the policy then requires an approval of the exact command.

- wrappers (`env`, `xargs`, `sudo`, `timeout`, …) run the command in their arguments;
- interpreters, shells, build tools, pagers, editors and remote shells run whatever
  program, script, build file or keystroke they are handed, so only `--version` or
  `--help` alone counts as plain for them;
- the others have a rule of their own below, written from their manual pages.

Names are matched as typed and as resolved (`awk` → `mawk`, `vi` → `vim.basic`), with a
version or `.suffix` dropped (`python3.11` → `python`), so a renamed link gains nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from claw.tools.arg_words import Unexpandable, effective_args, outside_reason
from claw.tools.git_rules import git_danger
from claw.tools.option_scan import find_long, find_short, long_option, only_asks_for_information, operands
from claw.tools.script_rules import awk_danger, sed_findings
from claw.tools.shell_chain import Word


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


WRAPPERS = _names(
    "env nice nohup timeout stdbuf setsid xargs sudo doas su runuser busybox toybox ionice chrt taskset chroot "
    "flock unshare nsenter script time watch parallel strace ltrace gdb lldb valgrind perf entr at batch crontab "
    "systemd-run sg newgrp pkexec fakeroot fakechroot firejail bwrap proot unbuffer rlwrap expect "
    "dbus-run-session setpriv capsh exec command builtin eval source"
)
"""Binaries whose job is to run another command named in their arguments."""

_MULTI_CALL = frozenset({"busybox", "toybox", "coreutils"})
"""One binary behind many names: what runs is the name it was called by."""

_FAMILIES: dict[str, tuple[frozenset[str], str]] = {
    "interpreter": (
        _names(
            "python pypy perl ruby irb node nodejs deno bun php lua luajit tclsh wish rscript julia pwsh "
            "powershell osascript java jshell groovy scala kotlin elixir iex erl escript guile racket sbcl "
            "clisp ghci runghc runhaskell ocaml swift dotnet gjs qjs"
        ),
        "{name} runs the program it is given (a script file, or -c/-e code)",
    ),
    "shell": (
        _names("sh bash dash zsh ksh mksh pdksh ash yash fish csh tcsh rc es elvish nu xonsh"),
        "{name} is a shell: it runs any command it is given",
    ),
    "build": (
        _names(
            "make gmake bmake cmake ninja meson scons bazel npm npx pnpm yarn bunx pip pipx uv uvx poetry pdm "
            "hatch cargo go gradle gradlew mvn ant rake bundle tox nox pytest just task"
        ),
        "{name} runs the commands that the project's own files (Makefile, package.json, conftest.py…) define",
    ),
    "pager": (
        _names("less more most pg man info"),
        "{name} is a pager, and pagers run programs (!cmd, LESSOPEN, a configured viewer)",
    ),
    "editor": (
        _names(
            "vi vim nvim view vimdiff rvim gvim ex ed red nano pico emacs emacsclient joe jed jstar mcedit micro "
            "kak hx ne code subl"
        ),
        "{name} is an editor, and editors run shell commands (:!cmd) and write any file",
    ),
    "remote": (
        _names("ssh scp sftp slogin rsh rlogin mosh"),
        "{name} runs commands on another machine (and options such as ProxyCommand run them here)",
    ),
}

_SUFFIX = re.compile(r"(?<=.)\.[a-z]+$")
_VERSION = re.compile(r"[-._]?\d+(?:\.\d+)*$")


def canonical(name: str) -> str:
    """`python3.11` → `python`, `vim.basic` → `vim`, `pip3` → `pip`: the name a rule is filed under."""
    lowered = _SUFFIX.sub("", name.lower())
    return _VERSION.sub("", lowered) or lowered


def program_names(word: str, binary: str) -> frozenset[str]:
    """The names the invoked program goes by: as typed, and as its resolved file is called."""
    typed, real = os.path.basename(word), os.path.basename(binary)
    names = {typed} if canonical(real) in _MULTI_CALL and canonical(typed) not in _MULTI_CALL else {typed, real}
    return frozenset({n.lower() for n in names} | {canonical(n) for n in names})


Check = Callable[[Sequence[str], Path], str | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """A binary's own check over its (expanded) arguments; `keeps_order` when position decides meaning."""

    check: Check
    keeps_order: bool = False


def danger(names: frozenset[str], words: Sequence[Word], cwd: Path) -> str | None:
    """Why this invocation (argv[0]'s `names`, argument `words`) is beyond a bare entry, or None."""
    for name in sorted(names):
        if name in WRAPPERS:
            return f"{name} runs other commands: the one given in its arguments"
    families = [text.format(name=n) for n in sorted(names) for members, text in _FAMILIES.values() if n in members]
    rules = [RULES[n] for n in sorted(names) if n in RULES]
    if not families and not rules:
        return None
    try:
        args = effective_args(words, cwd, keep_order=any(r.keeps_order for r in rules))
    except Unexpandable as exc:
        return str(exc)
    if families and not only_asks_for_information(args):
        return families[0]
    for rule in rules:
        reason = rule.check(args, cwd)
        if reason is not None:
            return reason
    return None


def _find(args: Sequence[str], cwd: Path) -> str | None:
    for word in args:
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            return f"find {word} runs a program on each file it finds"
        if word == "-delete":
            return "find -delete deletes files"
        if word in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            return f"find {word} writes to a file"
    return None


_SED_FLAGS = frozenset("nsrzuEb")
_SED_LONG = ("expression", "file", "in-place", "line-length", "null-data", "zero-terminated", "quiet", "silent",
             "regexp-extended", "separate", "sandbox", "unbuffered", "binary", "follow-symlinks", "posix", "debug",
             "help", "version")  # fmt: skip


def sed_scripts(args: Sequence[str]) -> tuple[str | None, list[str]]:
    """(why sed cannot be vouched for, or None; the scripts it will run), read as GNU sed's getopt does."""
    scripts: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        parsed = long_option(word)
        if word == "--":
            rest.extend(args[i:])
            break
        if parsed is not None:
            name, value = parsed
            known = [n for n in _SED_LONG if n.startswith(name)] if name else []
            if not known:
                return f"sed option {word} is not one this check knows", []
            if "in-place" in known:
                return "sed -i rewrites files in place (any file, anywhere)", []
            if "file" in known:
                return "sed -f runs a script file that this check cannot read", []
            if "expression" in known or "line-length" in known:
                if value is None:
                    value = args[i] if i < len(args) else ""
                    i += 1
                if "expression" in known:
                    scripts.append(value)
            continue
        if not word.startswith("-") or word == "-":
            rest.append(word)
            continue
        for pos, letter in enumerate(word[1:], start=1):
            if letter == "i":
                return "sed -i rewrites files in place (any file, anywhere)", []
            if letter == "f":
                return "sed -f runs a script file that this check cannot read", []
            if letter in "el":
                value = word[pos + 1 :]
                if not value:
                    value = args[i] if i < len(args) else ""
                    i += 1
                if letter == "e":
                    scripts.append(value)
                break
            if letter not in _SED_FLAGS:
                return f"sed option -{letter} is not one this check knows", []
    if not scripts and rest:
        scripts.append(rest[0])
    return None, scripts


def _sed(args: Sequence[str], cwd: Path) -> str | None:
    reason, scripts = sed_scripts(args)
    return reason or sed_findings("\n".join(scripts)).danger


def awk_program(args: Sequence[str]) -> tuple[str | None, str]:
    """(why awk cannot be vouched for, or None; its program text). Only -F and -v are taken as plain."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        word = args[i]
        i += 1
        if word == "--":
            break
        if word in ("-F", "-v", "--field-separator", "--assign"):
            i += 1  # its value is the next word
        elif word.partition("=")[0] in ("--field-separator", "--assign") or word[:2] in ("-F", "-v"):
            continue  # the value is attached
        else:
            return f"awk option {word} can load code or write files; this check only takes -F and -v", ""
    return None, args[i] if i < len(args) else ""


def _awk(args: Sequence[str], cwd: Path) -> str | None:
    reason, program = awk_program(args)
    return reason or awk_danger(program)


def _sort(args: Sequence[str], cwd: Path) -> str | None:
    if find_short(args, "o", values="kSTty") or find_long(args, ("output",)):
        return "sort -o writes to the file it names"
    if find_long(args, ("compress-program",)):
        return "sort --compress-program runs the program it names"
    if find_short(args, "T", values="kSoty") or find_long(args, ("temporary-directory",)):
        return "sort -T writes temporary files to the directory it names"
    return None


def _uniq(args: Sequence[str], cwd: Path) -> str | None:
    if len(operands(args, values="fsw", long_values=("skip-fields", "skip-chars", "check-chars"))) >= 2:
        return "uniq's second operand is an output file that it writes"
    return None


def _tree(args: Sequence[str], cwd: Path) -> str | None:
    if find_short(args, "oR"):
        return "tree -o/-R writes its listing to files"
    return None


def _date(args: Sequence[str], cwd: Path) -> str | None:
    if find_short(args, "s", values="dfr", optional="I") or find_long(args, ("set",)):
        return "date -s sets the system clock"
    found = operands(args, values="dfrs", long_values=("date", "file", "reference", "set", "rfc-3339"))
    if any(not word.startswith("+") for word in found):
        return "date with a MMDDhhmm operand sets the system clock"
    return None


def _file(args: Sequence[str], cwd: Path) -> str | None:
    if find_short(args, "C", values="eFfmP") or find_long(args, ("compile",)):
        return "file -C writes a compiled magic file"
    return None


def _rg(args: Sequence[str], cwd: Path) -> str | None:
    if find_long(args, ("pre",)):
        return "rg --pre runs a program on every file it searches"
    return None


def _ugrep(args: Sequence[str], cwd: Path) -> str | None:
    if find_long(args, ("filter", "pager", "view", "query")) or find_short(args, "Q"):
        return "ugrep --filter/--pager/--view/-Q runs other programs"
    return None


def _tar(args: Sequence[str], cwd: Path) -> str | None:
    runners = ("to-command", "checkpoint-action", "use-compress-program", "rsh-command", "rmt-command",
               "info-script", "new-volume-script")  # fmt: skip
    if find_long(args, runners):
        return "tar --to-command/--checkpoint-action/--use-compress-program runs the program it names"
    old_style = args[0] if args and not args[0].startswith("-") else ""
    if find_short(args, "IF") or any(letter in old_style for letter in "IF"):
        return "tar -I/-F runs the program it names"
    if "--force-local" not in args and any(":" in word for word in args):
        return "tar reaches an archive named host:file by running a remote shell"
    return None


def _rsync(args: Sequence[str], cwd: Path) -> str | None:
    if find_short(args, "eM") or find_long(args, ("rsh", "rsync-path", "remote-option", "daemon", "config")):
        return "rsync -e/--rsync-path/-M names a program to run"
    for word in args:
        head, colon, _ = word.partition(":")
        if colon and not word.startswith("-") and "/" not in head:
            return f"rsync to {word} runs a remote shell"
    return None


def _sdiff(args: Sequence[str], cwd: Path) -> str | None:
    if find_long(args, ("diff-program", "output")) or find_short(args, "o"):
        return "sdiff/diff3 --diff-program runs a program, and -o writes a file"
    return None


def _git(args: Sequence[str], cwd: Path) -> str | None:
    return git_danger(args, cwd, lambda place, here: outside_reason(place, here, cwd, existing_only=False))


RULES: dict[str, Rule] = {
    "find": Rule(_find),
    "sed": Rule(_sed, keeps_order=True),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), Rule(_awk, keeps_order=True)),
    "sort": Rule(_sort),
    "uniq": Rule(_uniq),
    "tree": Rule(_tree),
    "date": Rule(_date, keeps_order=True),
    "file": Rule(_file),
    "rg": Rule(_rg),
    **dict.fromkeys(("ugrep", "ug"), Rule(_ugrep)),
    **dict.fromkeys(("tar", "gtar", "bsdtar"), Rule(_tar, keeps_order=True)),
    "rsync": Rule(_rsync),
    **dict.fromkeys(("sdiff", "diff3"), Rule(_sdiff)),
    "git": Rule(_git, keeps_order=True),
}
