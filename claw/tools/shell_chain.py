"""Splitting a shell command line into the simple commands it chains together, word by word.

The allowlist check needs every command that `/bin/sh -c` would start, so this
splitter errs on the side of finding *more* segments and more hazards than the
shell would, never fewer: it splits on `;`, `&&`, `||`, `|`, `&` and newlines
outside quotes, and reports as hazards anything it will not reason about —
command substitution (`$(…)`, backticks, even inside quotes), redirections and
subshell parentheses outside quotes, and quotes it cannot balance.

It is its own small tokenizer rather than `shlex`, because the policy must know
what the shell will still do to each word after quote removal: a word with an
unquoted `$x` or `${x:-…}` (or any `$` inside double quotes) is replaced by
something the policy cannot see, an unquoted `*?[` is a glob, an unquoted `~`
expands to a home directory and an unquoted `{…}` is brace expansion where
`/bin/sh` is bash. `Word.expands` records which of these a word has.
"""

from __future__ import annotations

from dataclasses import dataclass

_SEPARATORS = frozenset(";&|\n")
_BLANKS = frozenset(" \t")
_GLOB = frozenset("*?[")

DOLLAR, GLOB, TILDE, LATE_TILDE, BRACE = "$", "glob", "~", "=~", "{}"
"""The expansions a word can carry: `$…` (parameters, arithmetic), pathname globs, a leading `~`, a `~`
after `=` or `:` (bash expands those in assignment-like words), and `{…}` (bash's brace expansion)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a simple command: its text after quote removal, its source, and what the shell expands."""

    text: str
    raw: str
    """The word exactly as written, quotes included: `'*'` and `*` have one text but mean different things."""
    expands: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ShellChain:
    """The argv of each simple command in a command line, or the reason it cannot be vouched for."""

    segments: tuple[tuple[str, ...], ...]
    hazard: str | None = None
    words: tuple[tuple[Word, ...], ...] = ()
    """The same segments with each word's source and expansions (`segments` is their text)."""


def split_chain(command: str) -> ShellChain:
    """Split `command` into per-segment words; `hazard` is set when the line is not a plain chain."""
    if "$(" in command or "`" in command:
        return ShellChain((), "command substitution")
    try:
        segments = _Tokenizer(command).segments()
    except _Hazard as hazard:
        return ShellChain((), str(hazard))
    if not segments:
        return ShellChain((), "empty command")
    return ShellChain(tuple(tuple(w.text for w in seg) for seg in segments), None, segments)


class _Hazard(Exception):
    """The command line holds something the splitter will not reason about."""


class _Tokenizer:
    """One left-to-right pass: words, separators and hazards, as POSIX sh reads them."""

    def __init__(self, command: str) -> None:
        self.src = command
        self.i = 0
        self.done: list[tuple[Word, ...]] = []
        self.segment: list[Word] = []
        self._reset_word()

    def _reset_word(self) -> None:
        self.text: list[str] = []
        self.start: int | None = None
        self.expands: set[str] = set()
        self.braces = 0

    def segments(self) -> tuple[tuple[Word, ...], ...]:
        src = self.src
        while self.i < len(src):
            ch = src[self.i]
            if ch in _BLANKS:
                self._end_word()
            elif ch in _SEPARATORS:
                self._end_word()
                self._end_segment()
            elif ch in "<>":
                raise _Hazard("redirection")
            elif ch in "()":
                raise _Hazard("subshell")
            elif ch == "#" and self.start is None:
                self._skip_comment()
                continue
            else:
                self._word_char(ch)
                continue
            self.i += 1
        self._end_word()
        self._end_segment()
        return tuple(self.done)

    def _word_char(self, ch: str) -> None:
        """Consume one unit of a word (a character, an escape, or a whole quoted part) at `self.i`."""
        if ch == "\\" and self.src[self.i + 1 : self.i + 2] == "\n":
            self.i += 2  # a line continuation: it vanishes, and starts no word
            return
        if self.start is None:
            self.start = self.i
        if ch == "\\":
            self.text.append(self.src[self.i + 1 : self.i + 2] or "\\")
            self.i += 2
        elif ch == "'":
            end = self.src.find("'", self.i + 1)
            if end < 0:
                raise _Hazard("unbalanced quotes")
            self.text.append(self.src[self.i + 1 : end])
            self.i = end + 1
        elif ch == '"':
            self._double_quoted()
        else:
            if ch == "$":
                self.expands.add(DOLLAR)
            elif ch in _GLOB:
                self.expands.add(GLOB)
            elif ch in "{}":
                self.braces += 1
            elif ch == "~" and self.i == self.start:
                self.expands.add(TILDE)
            elif ch == "~" and "".join(self.text)[-1:] in ("=", ":"):
                self.expands.add(LATE_TILDE)
            self.text.append(ch)
            self.i += 1

    def _double_quoted(self) -> None:
        src, i = self.src, self.i + 1
        while i < len(src) and src[i] != '"':
            if src[i] == "\\" and i + 1 < len(src) and src[i + 1] in '$`"\\\n':
                if src[i + 1] != "\n":
                    self.text.append(src[i + 1])
                i += 2
                continue
            if src[i] == "$":
                self.expands.add(DOLLAR)
            self.text.append(src[i])
            i += 1
        if i >= len(src):
            raise _Hazard("unbalanced quotes")
        self.i = i + 1

    def _skip_comment(self) -> None:
        end = self.src.find("\n", self.i)
        self.i = len(self.src) if end < 0 else end

    def _end_word(self) -> None:
        if self.start is not None:
            text = "".join(self.text)
            if self.braces >= 2 and ("," in text or ".." in text):  # bash's {a,b} / {1..9}; `{}` stays literal
                self.expands.add(BRACE)
            self.segment.append(Word(text, self.src[self.start : self.i], frozenset(self.expands)))
        self._reset_word()

    def _end_segment(self) -> None:
        if self.segment:
            self.done.append(tuple(self.segment))
        self.segment = []
