"""What a sed or awk program given on the command line can do besides read and print.

Both languages can run programs and write files from inside the program text: sed
with its `e` command, the `e` and `w` flags of `s`, and its `w`/`W` commands; awk
with `system()`, pipes (`print | "cmd"`, `"cmd" | getline`), output redirection
(`print > "file"`), and gawk's `@load`/`@include`. These checks read the program the
way GNU sed and awk do where that is simple, and otherwise call the program
dangerous: a false alarm costs one approval, a miss runs a command unasked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_SED_PLAIN = frozenset("=dDgGhHnNpPxzF")
_SED_NUMBERED = frozenset("lLqQ")
_SED_LABELLED = frozenset(":btT")
_SED_TEXT = frozenset("aic")
_S_FLAGS = frozenset("gpiImM0123456789")
_END = frozenset(";\n}#")


@dataclass(slots=True)
class SedFindings:
    """What a sed script does beyond reading its input: `danger` says why it is not read-only;
    `reads` are the files its `r`/`R` commands read."""

    danger: str | None = None
    reads: list[str] = field(default_factory=list)


def sed_findings(script: str) -> SedFindings:
    """Scan a GNU sed script. (`--sandbox` is not taken as a reason to relax: it is rare, and its exact
    reach over the `s` flags is not something to guess at.)"""
    found = SedFindings()
    try:
        _SedScan(script, found).run()
    except _Unreadable as exc:
        found.danger = f"this sed script cannot be checked ({exc})"
    return found


class _Unreadable(Exception):
    """A sed script this scanner does not follow (sed would mostly reject it too)."""


class _SedScan:
    def __init__(self, script: str, found: SedFindings) -> None:
        self.s, self.i, self.found = script, 0, found

    def _peek(self) -> str:
        return self.s[self.i : self.i + 1]

    def _blanks(self) -> None:
        while self._peek() in (" ", "\t"):
            self.i += 1

    def run(self) -> None:
        while self.i < len(self.s):
            ch = self._peek()
            if ch in " \t\n;{}":
                self.i += 1
            elif ch == "#":
                self._to_line_end()
            else:
                self._command()
            if self.found.danger:
                return

    def _command(self) -> None:
        self._address()
        self._blanks()
        if self._peek() == ",":
            self.i += 1
            self._blanks()
            self._address(second=True)
        self._blanks()
        while self._peek() == "!":
            self.i += 1
            self._blanks()
        cmd = self._peek()
        self.i += 1
        if cmd in ("{", "}") or cmd in _SED_PLAIN:
            return
        if cmd in _SED_NUMBERED:
            self._blanks()
            while self._peek().isdigit():
                self.i += 1
        elif cmd in _SED_LABELLED:
            self._blanks()
            while self._peek() and self._peek() not in " \t\n;":
                self.i += 1
        elif cmd in _SED_TEXT:
            self._text()
        elif cmd == "s":
            self._substitute()
        elif cmd == "y":
            delim = self._delimiter("y")
            self._part(delim)
            self._part(delim)
        elif cmd in ("r", "R"):
            self.found.reads.append(self._filename())
        elif cmd in ("w", "W"):
            self.found.danger = f"sed's {cmd} command writes to a file ({self._filename() or 'unnamed'})"
        elif cmd == "e":
            self.found.danger = "sed's e command runs a shell command"
        elif cmd == "v":
            self._blanks()
            while self._peek() and self._peek() not in _END and not self._peek().isspace():
                self.i += 1
        else:
            raise _Unreadable(f"unknown command {cmd!r}" if cmd else "a command is missing")

    def _address(self, *, second: bool = False) -> None:
        ch = self._peek()
        if ch.isdigit() or (second and ch != "" and ch in "+~"):
            self.i += 1
            while self._peek().isdigit() or self._peek() == "~":
                self.i += 1
        elif ch == "$":
            self.i += 1
        elif ch in ("/", "\\"):
            if ch == "\\":
                self.i += 1
            delim = self._peek()
            if not delim or delim == "\n":
                raise _Unreadable("an address has no delimiter")
            self.i += 1
            self._part(delim)
            while self._peek() in ("I", "M"):
                self.i += 1

    def _delimiter(self, cmd: str) -> str:
        delim = self._peek()
        if not delim or delim in "\n\\":
            raise _Unreadable(f"{cmd} has no delimiter")
        self.i += 1
        return delim

    def _part(self, delim: str) -> None:
        """Skip to just past the next unescaped `delim`, as GNU sed's match_slash does."""
        while self.i < len(self.s):
            ch = self.s[self.i]
            self.i += 2 if ch == "\\" else 1
            if ch == delim:
                return
        raise _Unreadable(f"unterminated {delim}…{delim}")

    def _substitute(self) -> None:
        delim = self._delimiter("s")
        self._part(delim)
        self._part(delim)
        while self.i < len(self.s) and self._peek() not in _END and not self._peek().isspace():
            flag = self._peek()
            self.i += 1
            if flag == "e":
                self.found.danger = "the e flag of sed's s command runs the result as a shell command"
                return
            if flag == "w":
                self.found.danger = f"the w flag of sed's s command writes to a file ({self._filename()})"
                return
            if flag not in _S_FLAGS:
                raise _Unreadable(f"unknown s flag {flag!r}")

    def _filename(self) -> str:
        """r, R, w, W and s///w take the rest of the line as a file name."""
        self._blanks()
        start = self.i
        self._to_line_end()
        return self.s[start : self.i]

    def _text(self) -> None:
        """a, i and c take text up to an unescaped newline (a backslash-newline continues it)."""
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch == "\n":
                return
            self.i += 2 if ch == "\\" else 1

    def _to_line_end(self) -> None:
        end = self.s.find("\n", self.i)
        self.i = len(self.s) if end < 0 else end


def awk_danger(program: str) -> str | None:
    """Why an awk program may run a program or write a file, or None when it can only read and print."""
    text = program.replace("\\\n", "")
    if "system" in text:
        return "awk's system() runs a shell command"
    if "|" in text:
        return 'an awk pipe (print | "cmd", "cmd" | getline) runs a shell command'
    if "@" in text:
        return "gawk's @load/@include and indirect calls run code from outside the program"
    if ">" in text and ("print" in text):
        return "awk's print > file writes to a file (any > with print or printf counts)"
    return None


def awk_reads_named_files(program: str) -> bool:
    """The program may open files it names itself (`getline < f`, or by rewriting ARGV), not just its operands."""
    return "getline" in program or "ARGV" in program
