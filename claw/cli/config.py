"""`claw config path|get|set|unset`: read and change config.toml by dotted key.

What is printed never shows a secret unless asked: values of secret-like keys (`secret`, `botToken`,
`apiKey`, …) and credentials in URLs are masked by `get` (`--show-secrets` shows them) and by `set`'s echo.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from claw.cli.common import JsonOption, print_json
from claw.paths import Paths

if TYPE_CHECKING:
    from claw.config import ConfigFile

app = typer.Typer(
    help="Read and change config.toml by dotted key (agents.defaults.model, gateway.port, …).",
    no_args_is_help=True,
)

KeyArgument = typer.Argument(..., metavar="KEY", help="Dotted key, e.g. agents.defaults.model or gateway.port.")
ShowSecretsOption = typer.Option(
    False, "--show-secrets", help="Print secrets (tokens, API keys, passwords in URLs) instead of [redacted]."
)


@app.command("path")
def path_cmd() -> None:
    """Print where config.toml is (it may not exist yet: run `claw init`)."""
    typer.echo(str(Paths.from_env().config_file))


@app.command("get")
def get_cmd(key: str = KeyArgument, as_json: bool = JsonOption, show_secrets: bool = ShowSecretsOption) -> None:
    """Print a value, or the default claw uses when it is unset; a table prints every key in effect
    (`# default` marks the ones config.toml does not set). Secrets masked."""
    from claw import config_edit
    from claw.config import load_config, read_config_dict
    from claw.redact import mask_secrets

    parts = config_edit.resolve_key(key)
    paths = Paths.from_env()
    config = load_config(paths)  # validates the whole file: a broken file is reported, not half-read
    found, value = config_edit.lookup(read_config_dict(paths.config_file), parts)
    default = config_edit.effective_default(config.file, paths.config_file, parts)
    defaults: set[tuple[str, ...]] = set()
    if isinstance(default, dict) and (not found or isinstance(value, dict)):
        value, defaults = _with_defaults(config.file, paths.config_file, parts, value if found else {}, default)
    elif not found:
        value = default
    if not show_secrets:
        value = mask_secrets(value, parts[-1])
    if as_json:
        print_json(value)
    elif config_edit.is_unset(value):  # also a table of nothing but unset keys, such as a model with no primary
        print(f"{key} is not set (no default)", file=sys.stderr)
    elif isinstance(value, dict):
        for line in _table_lines(value, defaults):
            typer.echo(line)
    else:
        typer.echo(config_edit.format_value(value))


def _with_defaults(
    file: ConfigFile, path: Path, parts: tuple[str, ...], set_here: dict[str, Any], default: dict[str, Any]
) -> tuple[dict[str, Any], set[tuple[str, ...]]]:
    """The table the file sets at `parts` with every key it leaves out filled in from `default`, and the
    (relative) keys so filled. Tables the file sets are merged the same way, each with its own default:
    `providers.x` defaults to ProviderSettings, `agents.list.x` inherits agents.defaults."""
    from claw.config_edit import effective_default

    merged: dict[str, Any] = {}
    filled: set[tuple[str, ...]] = set()
    for name in [*default, *(k for k in set_here if k not in default)]:
        if name not in set_here:
            merged[name] = default[name]
            filled.add((name,))
            continue
        inner_default = effective_default(file, path, (*parts, name))
        if isinstance(set_here[name], dict) and isinstance(inner_default, dict):
            merged[name], inner = _with_defaults(file, path, (*parts, name), set_here[name], inner_default)
            filled |= {(name, *key) for key in inner}
        else:
            merged[name] = set_here[name]
    return merged, filled


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _table_lines(
    table: dict[str, Any], defaults: set[tuple[str, ...]], prefix: tuple[str, ...] = (), inherited: bool = False
) -> list[str]:
    """`key = value` lines, dotted below the table asked for, so they paste back under its [section];
    `# default` on each value the file does not set (`inherited`: a table above it came whole from defaults)."""
    import tomlkit

    from claw.config_edit import format_value

    lines: list[str] = []
    for name, value in table.items():
        key = (*prefix, name)
        is_default = inherited or key in defaults
        if isinstance(value, dict) and value:
            lines += _table_lines(value, defaults, key, is_default)
            continue
        dotted = ".".join(part if _BARE_KEY.match(part) else json.dumps(part) for part in key)
        if value is None:
            lines.append(f"# {dotted} is not set")
            continue
        shown = tomlkit.item(value).as_string() if isinstance(value, str) else format_value(value)
        lines.append(f"{dotted} = {shown}" + ("  # default" if is_default else ""))
    return lines


@app.command("set", context_settings={"ignore_unknown_options": True})  # `set KEY -5`: a value, not an option
def set_cmd(
    key: str = KeyArgument,
    value: str = typer.Argument(
        ..., metavar="VALUE", help='A TOML value (8, true, ["a", "b"], {primary = "x"}) or plain text.'
    ),
) -> None:
    """Set KEY to VALUE, keeping the file's comments. The whole config is checked before saving."""
    from claw import config_edit
    from claw.redact import mask_secrets

    parts = config_edit.resolve_key(key)
    path = Paths.from_env().config_file
    parsed = config_edit.parse_value(value, ".".join(parts))
    with config_edit.editing(path) as doc:
        config_edit.set_value(doc, parts, parsed)
    shown = config_edit.format_value(mask_secrets(parsed, parts[-1]))
    typer.echo(f"{'.'.join(parts)} = {shown}  ({path})")


@app.command("unset")
def unset_cmd(key: str = KeyArgument) -> None:
    """Remove KEY from config.toml so the default (or inherited value) applies again."""
    from claw import config_edit

    parts = config_edit.resolve_key(key)
    path = Paths.from_env().config_file
    with config_edit.editing(path) as doc:
        removed = config_edit.unset_value(doc, parts)
    if not removed:
        typer.echo(f"{'.'.join(parts)} was not set in {path}")
        return
    typer.echo(f"removed {'.'.join(parts)} from {path}")
