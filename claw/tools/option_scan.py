"""Reading a command's arguments the way `getopt_long` does — closely enough to find dangerous options.

Every helper here leans one way when it cannot be exact: towards *finding* an option
(or counting an operand) that the program would not see, never towards missing one.
So the option tables callers pass may be incomplete, but must never be wrong:
a character listed as taking a value makes the rest of its word (or the next word)
that value, which hides it from the search.

- GNU tools accept any unambiguous prefix of a long option (`--out=f` is `--output=f`),
  so a long option matches when what was written is a prefix of the name.
- Short options cluster (`-uo out`), and a value may be attached (`-ofile`).
- Options may follow operands (GNU permutes), so every word is looked at; `--` ends
  the options only where that can only make the answer stricter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def long_option(word: str) -> tuple[str, str | None] | None:
    """`("name", "value")` for `--name=value`, `("name", None)` for `--name`; None for anything else."""
    if not word.startswith("--") or word == "--":
        return None
    name, eq, value = word[2:].partition("=")
    return name, (value if eq else None)


def find_long(args: Iterable[str], names: Iterable[str]) -> str | None:
    """The first word that is (an abbreviation of) one of the long options `names`, as written."""
    wanted = tuple(names)
    for word in args:
        parsed = long_option(word)
        if parsed is not None and parsed[0] and any(name.startswith(parsed[0]) for name in wanted):
            return word
    return None


def find_short(args: Sequence[str], letters: str, *, values: str = "", optional: str = "") -> str | None:
    """The first short option among `letters` in any cluster, as `-x`; None if there is none.

    `values` are the letters that take a required value (the rest of the word, or the next word);
    `optional` those whose value can only be attached (`-i.bak`)."""
    skip = False
    for word in args:
        if skip:
            skip = False
            continue
        if not word.startswith("-") or word.startswith("--") or word == "-":
            continue
        for pos, letter in enumerate(word[1:], start=1):
            if letter in letters:
                return "-" + letter
            if letter in values:
                skip = pos == len(word) - 1
                break
            if letter in optional:
                break
    return None


def operands(args: Sequence[str], *, values: str = "", long_values: Iterable[str] = ()) -> list[str]:
    """The words that are not options or option values, as getopt_long permutes them.

    Only exactly spelled long options in `long_values` consume the next word: an abbreviation
    then counts its value as an operand, which can only make a caller stricter."""
    takes_value = frozenset(long_values)
    found: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            found.extend(args[i:])
            break
        parsed = long_option(word)
        if parsed is not None:
            if parsed[1] is None and parsed[0] in takes_value:
                i += 1
            continue
        if word.startswith("-") and word != "-":
            for pos, letter in enumerate(word[1:], start=1):
                if letter in values:
                    i += pos == len(word) - 1
                    break
            continue
        found.append(word)
    return found


def only_asks_for_information(args: Sequence[str]) -> bool:
    """`--version` or `--help` alone: a program that runs code prints and exits without running any."""
    return len(args) == 1 and args[0] in ("--version", "--help")
