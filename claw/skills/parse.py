"""Turn one SKILL.md into a `Skill`, or say precisely why it cannot be one.

Frontmatter keys follow OpenClaw / AgentSkills: `name`, `description` (required),
`homepage`, `user-invocable`, `disable-model-invocation`, and `metadata`, which may
be YAML or a one-line JSON object. Its gating fields (`requires`, `os`, `always`,
`primaryEnv`, `skillKey`) are read directly, or from under a `claw` or `openclaw`
key (older OpenClaw skills say `clawdbot`), so skills written for OpenClaw load unchanged.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from claw.errors import ClawError
from claw.skills.frontmatter import FrontmatterError, load_yaml, read_frontmatter, read_head
from claw.skills.skill import Requires, Skill, SkillSource

MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
_METADATA_KEYS = ("claw", "openclaw", "clawdbot", "clawdis")
_UNSAFE_NAME = re.compile(r"[/\\\x00-\x1f\x7f]")
_OS_ALIASES = {
    "linux": "linux",
    "darwin": "darwin",
    "macos": "darwin",
    "mac": "darwin",
    "win32": "win32",
    "windows": "win32",
}


class SkillParseError(ClawError, ValueError):
    """Why a SKILL.md was skipped (one line, without the file name)."""


def parse_skill_file(path: Path, directory: Path, source: SkillSource) -> Skill:
    """The skill the SKILL.md at `path` describes, reading no more of it than a frontmatter may take
    (`MAX_FRONTMATTER_BYTES`); raises SkillParseError."""
    try:
        with path.open("rb") as handle:
            head = read_head(handle)
    except OSError as exc:
        raise SkillParseError(f"cannot read {path.name}: {exc.strerror}") from None
    return parse_skill_text(head, directory, source)


def parse_skill_text(text: str, directory: Path, source: SkillSource) -> Skill:
    """Build a `Skill` from a SKILL.md's text; raises SkillParseError."""
    try:
        data, _body = read_frontmatter(text)
    except FrontmatterError as exc:
        raise SkillParseError(str(exc)) from None
    name = _required_text(data, "name")
    check_name(name)
    description = " ".join(_required_text(data, "description").split())
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[: MAX_DESCRIPTION_CHARS - 1] + "…"
    meta = _metadata(data.get("metadata"))
    return Skill(
        name=name,
        description=description,
        directory=directory,
        source=source,
        requires=_requires(meta.get("requires")),
        os=tuple(_os(v) for v in _strings(meta.get("os"), "metadata.os")),
        always=_flag(meta.get("always"), "metadata.always", False),
        user_invocable=_flag(data.get("user-invocable"), "user-invocable", True),
        disable_model_invocation=_flag(data.get("disable-model-invocation"), "disable-model-invocation", False),
        primary_env=_optional_text(meta.get("primaryEnv"), "metadata.primaryEnv"),
        skill_key=_optional_text(meta.get("skillKey"), "metadata.skillKey"),
        homepage=_optional_text(data.get("homepage", meta.get("homepage")), "homepage"),
    )


def check_name(name: str) -> str:
    """A skill name names a folder and a slash command: no path separators, no leading dot."""
    if len(name) > MAX_NAME_CHARS:
        raise SkillParseError(f"name is longer than {MAX_NAME_CHARS} characters")
    if _UNSAFE_NAME.search(name) or name.startswith(".") or name != name.strip():
        raise SkillParseError(f"invalid name {name!r}: no slashes, control characters or leading dot")
    return name


def _required_text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        raise SkillParseError(f"missing required '{key}'")
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise SkillParseError(f"'{key}' must be text, not {type(value).__name__}")
    text = str(value).strip()
    if not text:
        raise SkillParseError(f"'{key}' is empty")
    return text


def _metadata(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            try:  # JSON5-ish input (unquoted keys, single quotes) is usually valid YAML flow
                raw = load_yaml(raw, "metadata")
            except FrontmatterError as exc:
                raise SkillParseError(f"metadata is neither JSON nor YAML ({exc})") from None
    if not isinstance(raw, dict):
        raise SkillParseError(f"metadata must be a mapping, not {type(raw).__name__}")
    for key in _METADATA_KEYS:
        nested = raw.get(key)
        if nested is not None:
            if not isinstance(nested, dict):
                raise SkillParseError(f"metadata.{key} must be a mapping")
            return nested
    return raw


def _requires(raw: Any) -> Requires:
    if raw is None:
        return Requires()
    if not isinstance(raw, dict):
        raise SkillParseError("metadata.requires must be a mapping")
    return Requires(
        bins=_strings(raw.get("bins"), "metadata.requires.bins"),
        any_bins=_strings(raw.get("anyBins"), "metadata.requires.anyBins"),
        env=_strings(raw.get("env"), "metadata.requires.env"),
        config=_strings(raw.get("config"), "metadata.requires.config"),
    )


def _strings(raw: Any, key: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(item, str) and item.strip() for item in raw):
        raise SkillParseError(f"{key} must be a list of names")
    return tuple(item.strip() for item in raw)


def _os(value: str) -> str:
    found = _OS_ALIASES.get(value.lower())
    if found is None:
        raise SkillParseError(f"metadata.os: unknown platform {value!r} (use linux, darwin or win32)")
    return found


def _flag(raw: Any, key: str, default: bool) -> bool:
    if raw is None:
        return default
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    raise SkillParseError(f"{key} must be true or false, not {raw!r}")


def _optional_text(raw: Any, key: str) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise SkillParseError(f"{key} must be text")
    return raw.strip() or None
