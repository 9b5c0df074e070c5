"""Split a SKILL.md into its YAML frontmatter (a mapping) and its Markdown body.

The frontmatter sits between a first line `---` and the next line `---` (or `...`).
PyYAML's C loader is used when libyaml is there (it is about five times faster,
which matters when hundreds of skills are on disk); both loaders are the safe ones.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_KEY_LINE = re.compile(r"^([A-Za-z][\w-]*):(?:\s+(.*))?$")

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader


class FrontmatterError(ValueError):
    """The frontmatter is missing or unreadable; the message says what is wrong."""


def split_frontmatter(text: str) -> tuple[str, str]:
    """`(yaml_text, body)`; raises FrontmatterError when there is no well-formed block."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("no YAML frontmatter (the file must start with a '---' line)")
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    raise FrontmatterError("the frontmatter is never closed (no second '---' line)")


def load_yaml(text: str, what: str = "frontmatter") -> Any:
    """Parse YAML text, turning a syntax error into a one-line FrontmatterError."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        where = f" at line {exc.problem_mark.line + 1}" if exc.problem_mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise FrontmatterError(f"{what} is not valid YAML{where}: {problem}") from None
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"{what} is not valid YAML: {exc}") from None


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
