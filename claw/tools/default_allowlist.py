"""The read-only commands that run without a prompt out of the box (`tools.exec.defaultAllowlist`).

So that `ls -la` or `grep -rn TODO .` needs no approval, these binaries — as found on the
PATH the command runs with, never a file in the workspace — are allowed when:

- the invocation is not one of their dangerous forms (`command_rules.danger`: `sort -o`,
  `find -exec`, `sed -i`, `date -s`, `rg --pre`, `tree -o`, `file -C`, `uniq in out`…);
- every path they are given stays inside the workspace. Unlike an entry the user added
  (which they chose to trust everywhere), a default never reads `~/.ssh` unasked.
  A word that names nothing existing passes (a read-only program cannot read what is
  not there, and so a search pattern needs no special case); symbolic links are
  followed; options that follow links while recursing or read file names from a file
  count as leaving the workspace.

Commands marked `inert` take no paths (`echo`, `pwd`, `date`): their words are not checked.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from claw.tools.arg_words import Unexpandable, effective_args, outside_reason
from claw.tools.command_rules import awk_program, sed_scripts
from claw.tools.option_scan import find_long, find_short, long_option
from claw.tools.script_rules import awk_reads_named_files, sed_findings
from claw.tools.shell_chain import Word


@dataclass(frozen=True, slots=True)
class DefaultCommand:
    """One default entry: a command name, and what about its arguments can lead out of the workspace."""

    name: str
    inert: bool = False
    plain_values: str = ""
    """Short options whose value is never a path (`cut -d/`), so it is not checked as one."""
    leaves_short: str = ""
    leaves_long: tuple[str, ...] = ()
    """Options that follow symbolic links while recursing, or read a list of file names from a file."""
    clusters: bool = True
    """Whether a single-dash word is a cluster of letters (not for find, whose `-name` is one word)."""


_LINKS_AND_LISTS = ("dereference", "files0-from")
DEFAULTS: tuple[DefaultCommand, ...] = (
    DefaultCommand("ls", plain_values="ITw", leaves_short="L", leaves_long=("dereference",)),
    DefaultCommand("cat"),
    DefaultCommand("head", plain_values="nc"),
    DefaultCommand("tail", plain_values="ncs"),
    DefaultCommand("wc", leaves_long=("files0-from",)),
    DefaultCommand("grep", plain_values="eABCmdD", leaves_short="R", leaves_long=("dereference-recursive",)),
    DefaultCommand("rg", plain_values="eABCmMjgtTr", leaves_short="L", leaves_long=("follow",)),
    DefaultCommand("stat", plain_values="c"),
    DefaultCommand("file", plain_values="eFP", leaves_short="f", leaves_long=("files-from",)),
    DefaultCommand("du", plain_values="dtB", leaves_short="L", leaves_long=_LINKS_AND_LISTS),
    DefaultCommand("tree", plain_values="LPIHT", leaves_short="l", leaves_long=("fromfile",)),
    DefaultCommand("sort", plain_values="kSt", leaves_long=("files0-from",)),
    DefaultCommand("uniq", plain_values="fsw"),
    DefaultCommand("cut", plain_values="bcdf"),
    DefaultCommand("diff", plain_values="UCFIDx", leaves_short="r", leaves_long=("recursive",)),
    DefaultCommand("cmp", plain_values="in"),
    DefaultCommand("comm"),
    DefaultCommand("nl", plain_values="bdfhilnsvw"),
    DefaultCommand("tac", plain_values="s"),
    DefaultCommand("md5sum"),
    DefaultCommand("sha1sum"),
    DefaultCommand("sha256sum"),
    DefaultCommand("realpath"),
    DefaultCommand("readlink"),
    DefaultCommand("find", clusters=False),
    DefaultCommand("sed", plain_values="el"),
    DefaultCommand("awk", plain_values="Fv"),
    *(
        DefaultCommand(name, inert=True)
        for name in ("echo", "printf", "pwd", "date", "true", "false", "basename", "dirname", "seq", "uname")
        + ("whoami", "which", "tr", "nproc")
    ),
)
_FIND_LEAVES = frozenset({"-L", "-follow", "-files0-from"})


def defaults_by_binary(path_env: str | None, workspace: Path) -> dict[str, DefaultCommand]:
    """The default entries keyed by the real path each name resolves to on `path_env` (outside the workspace)."""
    root = os.path.realpath(workspace)
    found: dict[str, DefaultCommand] = {}
    for command in DEFAULTS:
        located = shutil.which(command.name, path=path_env if path_env is not None else os.defpath)
        if located is None:
            continue
        real = os.path.realpath(located)
        if not (real == root or real.startswith(root + os.sep)):
            found.setdefault(real, command)
    return found


def leaves_workspace(command: DefaultCommand, words: Sequence[Word], cwd: Path) -> str | None:
    """Why this invocation of a default command may read outside the workspace (`cwd`), or None."""
    if command.inert:
        return None
    try:
        args = effective_args(words, cwd)
    except Unexpandable as exc:
        return str(exc)
    leaving = _leaving_option(command, args)
    if leaving:
        return f"{command.name} {leaving} follows links or reads a list of names, so it can leave the workspace"
    for path in _paths(command, args):
        reason = outside_reason(path, cwd, cwd, existing_only=True)
        if reason is not None:
            return reason
    return _program_reads(command, args, cwd)


def _leaving_option(command: DefaultCommand, args: Sequence[str]) -> str | None:
    if command.name == "find":
        return next((word for word in args if word in _FIND_LEAVES), None)
    short = find_short(args, command.leaves_short, values=command.plain_values) if command.leaves_short else None
    return short or (find_long(args, command.leaves_long) if command.leaves_long else None)


def _paths(command: DefaultCommand, args: Sequence[str]) -> list[str]:
    """Every word that could name a path: operands, `--opt=value` values, and the tails of letter clusters."""
    paths: list[str] = []
    skip_next = False
    for word in args:
        if skip_next:
            skip_next = False
            continue
        parsed = long_option(word)
        if parsed is not None:
            if parsed[1]:
                paths.append(parsed[1])
        elif word.startswith("-") and word != "-" and command.clusters:
            for pos in range(1, len(word)):
                if word[pos] in command.plain_values:
                    skip_next = pos == len(word) - 1
                    break
                if pos >= 2:
                    paths.append(word[pos:])  # the value of an earlier letter may start here
        elif word != "-":
            paths.append(word)
    return paths


def _program_reads(command: DefaultCommand, args: Sequence[str], cwd: Path) -> str | None:
    """A sed or awk program can open files it names itself, which the operand check never sees."""
    if command.name == "sed":
        _, scripts = sed_scripts(args)
        for path in sed_findings("\n".join(scripts)).reads:
            if outside_reason(path, cwd, cwd, existing_only=False) is not None:
                return f"sed's r/R command reads {path}, outside the workspace"
    if command.name == "awk" and awk_reads_named_files(awk_program(args)[1]):
        return "awk's getline and ARGV open files named in the program, which may be outside the workspace"
    return None
