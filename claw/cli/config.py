"""`claw config path|get|set|unset`: read and change config.toml by dotted key.

What is printed never shows a secret unless asked: values of secret-like keys (`secret`, `botToken`,
`apiKey`, …) and credentials in URLs are masked by `get` (`--show-secrets` shows them) and by `set`'s echo.
"""

from __future__ import annotations

import sys

import typer

from claw.cli.common import JsonOption, print_json
from claw.paths import Paths

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
    """Print a value from config.toml, or the default claw uses when it is unset (secrets masked)."""
    from claw import config_edit
    from claw.config import load_config, read_config_dict
    from claw.redact import mask_secrets

    parts = config_edit.resolve_key(key)
    paths = Paths.from_env()
    config = load_config(paths)  # validates the whole file: a broken file is reported, not half-read
    found, value = config_edit.lookup(read_config_dict(paths.config_file), parts)
    if not found:
        value = config_edit.effective_default(config.file, paths.config_file, parts)
    if not show_secrets:
        value = mask_secrets(value, parts[-1])
    if as_json:
        print_json(value)
    elif config_edit.is_unset(value):
        print(f"{key} is not set (no default)", file=sys.stderr)
    else:
        typer.echo(config_edit.format_value(value))


@app.command("set")
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
