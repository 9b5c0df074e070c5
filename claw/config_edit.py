"""Reading and changing config.toml by dotted key (`agents.defaults.model`), keeping the user's comments.

Keys are checked against the settings schema before anything is read or written, and a
changed file is validated as a whole before it replaces the old one, so a bad `set`
leaves config.toml exactly as it was. Every change goes through `editing`, a read-modify-write
under the file's cross-process lock, so two commands changing the config at once both land.
"""

from __future__ import annotations

import tomllib
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tomlkit
from pydantic import BaseModel
from pydantic.alias_generators import to_camel
from tomlkit.exceptions import ParseError
from tomlkit.items import Item

from claw.config import (
    AgentSettings,
    AgentsSection,
    Config,
    ConfigFile,
    ProviderSettings,
    decode_config,
    parse_config_text,
    validate_config_dict,
)
from claw.errors import ConfigError, UsageError
from claw.paths import check_agent_id, ensure_private_dir
from claw.store.atomic import atomic_write_text
from claw.store.file_lock import locked

# ConfigFile keeps agent sections as raw dicts (so inheritance merges keys); their keys are AgentSettings'.
_SCHEMA_OVERRIDES: dict[tuple[type, str], Any] = {
    (AgentsSection, "defaults"): AgentSettings,
    (AgentsSection, "list"): dict[str, AgentSettings],
}


def resolve_key(key: str) -> tuple[str, ...]:
    """Split a dotted key and check it against the schema; field names come back as the file's camelCase."""
    parts = key.split(".")
    if not key or not all(parts):
        raise UsageError(f"invalid config key {key!r}: use a dotted name like agents.defaults.model")
    node: Any = ConfigFile
    canonical: list[str] = []
    for part in parts:
        where = ".".join(canonical) or "the top level"
        if canonical == ["models"] and part == "prices":  # `[models.prices."p/m"]`: kept apart on load
            node = ConfigFile.model_fields["model_prices"].annotation
            canonical.append(part)
        elif isinstance(node, type) and issubclass(node, BaseModel):
            fields = {info.alias or name: (name, info) for name, info in node.model_fields.items()}
            alias = part if part in fields else to_camel(part)
            if alias not in fields:
                raise UsageError(f"unknown config key {key!r}: {where} has {', '.join(fields)}")
            name, info = fields[alias]
            node = _SCHEMA_OVERRIDES.get((node, name), info.annotation)
            canonical.append(alias)
        elif typing.get_origin(node) is dict:
            if canonical == ["agents", "list"]:
                check_agent_id(part)
            node = typing.get_args(node)[1]
            canonical.append(part)
        elif node is Any:
            canonical.append(part)
        else:
            raise UsageError(f"unknown config key {key!r}: {where} is a single value, not a table")
    return tuple(canonical)


def lookup(data: Any, parts: tuple[str, ...]) -> tuple[bool, Any]:
    """(True, value) if the nested dict `data` holds `parts`, else (False, None)."""
    for part in parts:
        if not isinstance(data, dict) or part not in data:
            return False, None
        data = data[part]
    return True, data


def effective_default(file: ConfigFile, path: Path, parts: tuple[str, ...]) -> Any:
    """The value used for an unset key: its default, or for `agents.list.<id>.*` the inherited value."""
    base: BaseModel
    if parts[:2] == ("agents", "defaults"):
        base, rest = AgentSettings(), parts[2:]
    elif parts[:2] == ("agents", "list") and len(parts) > 2:
        base, rest = Config(file, path=path, environ={}).agent(parts[2]), parts[3:]
    elif parts[0] == "providers" and len(parts) > 1:
        base, rest = ProviderSettings(), parts[2:]
    else:
        base, rest = ConfigFile(), parts
    return lookup(base.model_dump(by_alias=True, mode="json"), rest)[1]


# A value starting with one of these was meant as TOML (a table, an array, a quoted string): when it does
# not parse, storing it as text would hide the typo until something reads the setting.
_TOML_OPENERS = ("{", "[", '"', "'")


def parse_value(text: str, key: str = "VALUE") -> Any:
    """`text` as a TOML value (`8`, `true`, `["a"]`, `{primary = "x"}`) when it is one, else as a string.

    Text that starts like a table, an array or a quoted string must parse as exactly one value;
    a UsageError naming `key` otherwise (`{ primary = "x" ` is a typo, not a model name)."""
    try:
        parsed = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError as exc:
        problem = str(exc).partition(" (at ")[0]  # its column counts the `value = ` put in front
    else:
        if list(parsed) == ["value"]:
            return parsed["value"]
        problem = "more than one value"
    if text.lstrip().startswith(_TOML_OPENERS):
        shown = text if len(text) <= 60 else f"{text[:59]}…"
        raise UsageError(
            f"{key}: {shown!r} starts like a TOML value but does not parse ({problem}); "
            "fix it, or write text as a quoted TOML string"
        )
    return text


@contextmanager
def editing(path: Path) -> Iterator[tomlkit.TOMLDocument]:
    """config.toml to change in the `with` block: read under the file's lock, and saved (validated
    whole, atomically) when the block ends without an error and changed something."""
    ensure_private_dir(path.parent)
    with locked(path):
        doc = load_document(path)
        before = doc.as_string()
        yield doc
        if doc.as_string() != before:
            save_document(doc, path)


def load_document(path: Path) -> tomlkit.TOMLDocument:
    """config.toml as an editable document (empty when the file does not exist yet)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return tomlkit.document()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    text = decode_config(data, path)
    parse_config_text(text, path)  # a syntax error becomes claw's one-line message naming the file
    try:
        return tomlkit.parse(text)
    except ParseError as exc:
        raise ConfigError(f"{path}: cannot edit this file ({exc}); fix it by hand") from None


def set_value(doc: tomlkit.TOMLDocument, parts: tuple[str, ...], value: Any) -> None:
    """Set `parts` to `value`, creating missing tables; comments elsewhere in the file are kept."""
    table = ensure_table(doc, parts[:-1])
    table[parts[-1]] = _to_item(value)


def ensure_table(doc: tomlkit.TOMLDocument, parts: tuple[str, ...]) -> Any:
    """The table at `parts`, created (with any missing parents) if absent."""
    table: Any = doc
    for depth, part in enumerate(parts, start=1):
        if part not in table:
            table[part] = tomlkit.table()
        elif not isinstance(table[part], dict):
            dotted = ".".join(parts[:depth])
            raise UsageError(f"{dotted} holds a single value, not a table: set or unset {dotted} as a whole")
        table = table[part]
    return table


def unset_value(doc: tomlkit.TOMLDocument, parts: tuple[str, ...]) -> bool:
    """Remove `parts` from the document; False if it was not set."""
    found, table = lookup(doc, parts[:-1])
    if not found or not isinstance(table, dict) or parts[-1] not in table:
        return False
    del table[parts[-1]]
    return True


def save_document(doc: tomlkit.TOMLDocument, path: Path) -> None:
    """Validate the whole resulting config, then replace the file atomically (mode 0600)."""
    text = tomlkit.dumps(doc).rstrip("\n") + "\n"
    try:
        validate_config_dict(parse_config_text(text, path), path)
    except ConfigError as exc:
        raise ConfigError(f"{exc.message} ({path.name} not changed)") from None
    ensure_private_dir(path.parent)
    atomic_write_text(path, text, mode=0o600)


def format_value(value: Any) -> str:
    """A value as the user would write it in config.toml (strings bare, so scripts can use them)."""
    if isinstance(value, str):
        return value
    return _to_item(_drop_none(value)).as_string()


def is_unset(value: Any) -> bool:
    """True for None, and for a table whose every value is None or empty (an unset `model`)."""
    if isinstance(value, dict):
        return all(inner is None or inner in ([], {}) for inner in value.values())
    return value is None


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def _to_item(value: Any) -> Item:
    # Tables given on the command line stay inline (`model = {primary = "…"}`) so the edit is one line.
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for key, inner in value.items():
            table[key] = _to_item(inner)
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        for inner in value:
            array.append(_to_item(inner))
        return array
    return tomlkit.item(value)
