"""Split a SKILL.md into its YAML frontmatter (a mapping) and its Markdown body.

The frontmatter sits between a first line `---` and the next line `---` (or `...`), and is at
most `MAX_FRONTMATTER_BYTES`: a few keys, never a document. The cap is checked before any YAML
is parsed (PyYAML takes about six times a document's size in memory), and `read_head` reads
only as much of a file as a frontmatter within the cap can take, so a 50 MB SKILL.md costs 64 KB.
PyYAML's C loader is used when libyaml is there (it is about five times faster,
which matters when hundreds of skills are on disk); both loaders are the safe ones. PyYAML is
imported when something is first parsed: a turn whose skills come from the index parses nothing.
"""

from __future__ import annotations

import functools
import re
from typing import IO, Any

from claw.errors import ClawError

_KEY_LINE = re.compile(r"^([A-Za-z][\w-]*):(?:\s+(.*))?$")


MAX_FRONTMATTER_BYTES = 64 * 1024
# Room past the cap for a BOM, the opening line's spaces and the closing line (`---` or `...`, CRLF).
_SLACK_BYTES = 64


class FrontmatterError(ClawError, ValueError):
    """The frontmatter is missing or unreadable; the message says what is wrong."""


def read_head(handle: IO[bytes], limit: int = MAX_FRONTMATTER_BYTES) -> str:
    """The start of a file: as much as a frontmatter of up to `limit` bytes and its closing line take.

    Decoded leniently: a character cut at the end spoils only the last line, which `split_frontmatter`
    never trusts when the text is this long."""
    return handle.read(limit + _SLACK_BYTES).decode("utf-8", errors="replace")


def split_frontmatter(text: str, limit: int = MAX_FRONTMATTER_BYTES) -> tuple[str, str]:
    """`(yaml_text, body)`; raises FrontmatterError when there is no well-formed block of at most `limit` bytes.

    Only the first `limit` characters (and a little) are split into lines: a character is at least one
    byte, so a frontmatter within the cap lies inside them. `text` may be just a file's start (`read_head`)."""
    text = text.removeprefix("\ufeff")
    window = text[: limit + _SLACK_BYTES]
    lines = window.splitlines(keepends=True)
    # Text this long may be cut short (here, or by read_head): its last line may be the start of a longer
    # one, so it is dropped unless it ends. `----------` cut after three dashes is no closing line.
    cut = len(window.encode("utf-8")) >= limit + _SLACK_BYTES
    if cut and lines and lines[-1] == lines[-1].rstrip("\r\n"):
        lines.pop()
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("no YAML frontmatter (the file must start with a '---' line)")
    size = 0  # bytes before the closing line
    for index, line in enumerate(lines):
        if index and line.rstrip() in ("---", "..."):
            consumed = sum(len(before) for before in lines[: index + 1])
            return "".join(lines[1:index]), text[consumed:]
        size += len(line.encode("utf-8"))
        if size > limit:
            break
    if size <= limit and not cut:
        raise FrontmatterError("the frontmatter is never closed (no second '---' line)")
    raise FrontmatterError(
        f"the frontmatter is larger than {limit // 1024} KB (no closing '---' line within it); "
        "keep it to a few keys and put the rest in the body"
    )


def load_yaml(text: str, what: str = "frontmatter") -> Any:
    """Parse YAML text, turning a syntax error into a one-line FrontmatterError."""
    import yaml

    try:
        return yaml.load(text, Loader=_safe_loader())  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        where = f" at line {exc.problem_mark.line + 1}" if exc.problem_mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise FrontmatterError(f"{what} is not valid YAML{where}: {problem}") from None
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"{what} is not valid YAML: {exc}") from None


@functools.cache
def _safe_loader() -> type:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # SafeLoader: PyYAML built without libyaml


def read_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """The frontmatter as a dict, and the body; raises FrontmatterError.

    OpenClaw reads frontmatter line by line, so skills written for it may hold lines that
    strict YAML rejects, such as `description: Notes: how to keep them`. When YAML fails and
    every line is a plain one-line `key: value`, those lines are taken as they are.
    """
    head, body = split_frontmatter(text)
    try:
        data = load_yaml(head)
    except FrontmatterError:
        data = _single_line_keys(head)
        if data is None:
            raise
    if data is None:
        raise FrontmatterError("the frontmatter is empty (it needs at least 'name' and 'description')")
    if not isinstance(data, dict):
        raise FrontmatterError(f"the frontmatter must be a mapping of keys, not a {type(data).__name__}")
    return data, body


def _single_line_keys(head: str) -> dict[str, Any] | None:
    """`key: value` lines as strings (quotes removed), or None if any line is something else."""
    data: dict[str, Any] = {}
    for line in head.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_LINE.match(line.rstrip())
        if match is None:
            return None
        value = (match.group(2) or "").strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        data[match.group(1)] = value
    return data or None
