"""A bare "allow this binary" entry covers the binary's plain use, never the forms that run other programs.

Every case resolves real binaries on a real PATH; the few that this machine may lack (rg, tree, rsync)
are small executables of the test's own under those names, since the rules go by name.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from claw.config import ExecSettings
from claw.tools.allow_entry import AllowEntry
from claw.tools.exec_policy import decide
from claw.tools.shell_chain import split_chain

STUBBED = ("rg", "tree", "rsync")


@pytest.fixture
def path_env(tmp_path: Path) -> str:
    stubs = tmp_path / "stub-bin"
    stubs.mkdir()
    for name in STUBBED:
        (stubs / name).write_text("#!/bin/sh\nexit 0\n")
        (stubs / name).chmod(0o755)
    return f"{stubs}{os.pathsep}{os.environ.get('PATH', os.defpath)}"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    (path / "notes.txt").write_text("b\na\n")
    (tmp_path / "outside").mkdir()
    return path


def _entry(name: str, path_env: str) -> str:
    found = shutil.which(name, path=path_env)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return os.path.realpath(found)


DANGEROUS = [
    ("git", "git -c alias.x='!touch ../outside/PWNED; id' x", "git -c sets configuration"),
    ("git", "git --config-env=core.pager=PAGER log", "git -c sets configuration"),
    ("git", "git --exec-path=/tmp status", "--exec-path"),
    ("git", "git -C /etc log", "/etc is outside the workspace"),
    ("git", "git -C ../outside status", "../outside is outside the workspace"),
    ("git", "git -C ~ status", "outside the workspace"),
    ("git", "git --git-dir=/etc/.git log", "outside the workspace"),
    ("git", "git x", "alias"),
    ("git", "git submodule foreach id", "submodule foreach"),
    ("git", "git bisect run id", "bisect run"),
    ("git", "git rebase -x id HEAD~1", "rebase"),
    ("git", "git config alias.x '!id'", "git config can set"),
    ("git", "git clone -u 'sh -c id' src dst", "--upload-pack"),
    ("git", "git difftool HEAD", "difftool"),
    ("git", "git commit", "editor"),
    ("find", "find . -exec touch ../outside/PWNED {} +", "find -exec"),
    ("find", "find . -execdir id ;", "find -execdir"),
    ("find", "find . -ok id {} ;", "find -ok"),
    ("find", "find . -delete", "find -delete"),
    ("find", "find . -fprint ../outside/list", "find -fprint"),
    ("xargs", "xargs touch", "xargs runs other commands"),
    ("env", "env touch P", "env runs other commands"),
    ("awk", "awk 'BEGIN { system(\"id\") }'", "system()"),
    ("awk", 'awk \'BEGIN { print "x" > "../outside/P" }\'', "print > file"),
    ("awk", 'awk \'BEGIN { print "id" | "sh" }\'', "pipe"),
    ("awk", "awk -f prog.awk notes.txt", "awk option -f"),
    ("sed", "sed -i s/a/b/ notes.txt", "sed -i"),
    ("sed", "sed -ni p notes.txt", "sed -i"),
    ("sed", "sed --in-place=.bak s/a/b/ notes.txt", "sed -i"),
    ("sed", "sed '1e id' notes.txt", "e command"),
    ("sed", "sed 's/a/id/e' notes.txt", "e flag"),
    ("sed", "sed -n 'w ../outside/P' notes.txt", "w command"),
    ("sed", "sed -e 's/a/b/w ../outside/P' notes.txt", "w flag"),
    ("sed", "sed -f script.sed notes.txt", "sed -f"),
    ("tar", "tar --to-command='sh -c id' -xf a.tar", "tar --to-command"),
    ("tar", "tar --checkpoint=1 --checkpoint-action=exec=id -cf a.tar notes.txt", "--checkpoint-action"),
    ("tar", "tar -I 'sh -c id' -cf a.tar notes.txt", "tar -I"),
    ("tar", "tar cIf 'sh -c id' a.tar notes.txt", "tar -I"),
    ("rsync", "rsync -e 'sh -c id' notes.txt host:x", "rsync -e"),
    ("rsync", "rsync notes.txt host:x", "remote shell"),
    ("python3", "python3 -c 'import os'", "runs the program it is given"),
    ("python3", "python3 script.py", "runs the program it is given"),
    ("perl", "perl -e 'system(1)'", "runs the program it is given"),
    ("sh", "sh -c id", "shell"),
    ("less", "less notes.txt", "pager"),
    ("vi", "vi notes.txt", "editor"),
    ("make", "make", "Makefile"),
    ("sort", "sort -o ../outside/P notes.txt", "sort -o"),
    ("sort", "sort -uo ../outside/P notes.txt", "sort -o"),
    ("sort", "sort --out=../outside/P notes.txt", "sort -o"),
    ("sort", "sort --compress-program=sh notes.txt", "--compress-program"),
    ("rg", "rg --pre 'sh -c id' x", "rg --pre"),
    ("tree", "tree -o ../outside/P", "tree -o"),
    ("date", "date -s 2000-01-01", "date -s"),
    ("date", "date 010100002000", "sets the system clock"),
    ("file", "file -C -m magic", "file -C"),
    ("uniq", "uniq notes.txt ../outside/P", "output file"),
    ("sort", "sort ${X:---output=../outside/P} notes.txt", "the shell expands"),
]


@pytest.mark.parametrize(("name", "command", "why"), DANGEROUS, ids=[c for _, c, _ in DANGEROUS])
def test_a_bare_always_entry_does_not_cover_a_dangerous_form(
    ws: Path, path_env: str, name: str, command: str, why: str
) -> None:
    entry = _entry(name, path_env)
    asked = decide(command, ExecSettings(), [entry], cwd=ws, path_env=path_env)
    assert asked.action == "ask" and asked.exact_only and not asked.allowlisted, asked
    assert why in asked.reason and "only an approval of this exact command" in asked.reason, asked.reason
    raw_args = tuple(w.raw for w in split_chain(command).words[0][1:])
    assert asked.remember == (AllowEntry(entry, raw_args),)
    denied = decide(command, ExecSettings(ask="off"), [entry], cwd=ws, path_env=path_env)
    assert denied.action == "deny" and why in denied.reason


PLAIN = [
    ("git", "git status"),
    ("git", "git log --oneline -5"),
    ("git", "git -C sub diff"),
    ("git", "git --no-pager show HEAD"),
    ("git", "git commit -m 'a message'"),
    ("git", "git config --get user.name"),
    ("find", "find . -name '*.txt' -print"),
    ("awk", "awk -F: '{ print $1 }' notes.txt"),
    ("awk", "awk '$1 > 3' notes.txt"),
    ("sed", "sed -n '1,10p' notes.txt"),
    ("sed", "sed -e 's/a/b/g' -e '/x/d' notes.txt"),
    ("tar", "tar -tf a.tar"),
    ("tar", "tar czf a.tgz notes.txt"),
    ("rsync", "rsync -av src/ dst/"),
    ("python3", "python3 --version"),
    ("sort", "sort -t: -k2 -u notes.txt"),
    ("rg", "rg --pretty -n foo"),
    ("tree", "tree -L 2"),
    ("date", "date -u +%Y-%m-%d"),
    ("date", "date -Iseconds"),
    ("file", "file notes.txt"),
    ("uniq", "uniq -c notes.txt"),
    ("uniq", "uniq -f 2 notes.txt"),
]


@pytest.mark.parametrize(("name", "command"), PLAIN, ids=[c for _, c in PLAIN])
def test_the_same_entry_still_allows_plain_invocations(ws: Path, path_env: str, name: str, command: str) -> None:
    entry = _entry(name, path_env)
    verdict = decide(command, ExecSettings(default_allowlist=False), [entry], cwd=ws, path_env=path_env)
    assert verdict.action == "allow" and verdict.allowlisted, verdict


def test_a_renamed_link_to_a_dangerous_binary_gains_nothing(ws: Path, path_env: str) -> None:
    git = _entry("git", path_env)
    (ws / "lister").symlink_to(git)
    verdict = decide("./lister -c alias.x=!id x", ExecSettings(), ["/usr/*", os.path.dirname(git) + "/*"],
                     cwd=ws, path_env=path_env)  # fmt: skip
    assert verdict.action == "ask" and "git -c" in verdict.reason


def test_a_glob_that_matches_an_option_named_file_is_seen_as_that_option(ws: Path, path_env: str) -> None:
    (ws / "--output=stolen").write_text("")
    sort = _entry("sort", path_env)
    verdict = decide("sort *", ExecSettings(), [sort], cwd=ws, path_env=path_env)
    assert verdict.action == "ask" and "sort -o" in verdict.reason
