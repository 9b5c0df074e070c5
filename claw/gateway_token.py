"""The gateway token: from `CLAW_GATEWAY_TOKEN` when that is set and not blank, else from the token file
`claw init` writes. An empty or whitespace-only token counts as none.

Below the server: the channels (a webhook's secret must not be the gateway token), `claw doctor` and the
clients read it too; how the server checks it is `claw.server.auth`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING

from claw.errors import ConfigError

if TYPE_CHECKING:
    from claw.paths import Paths

TOKEN_ENV = "CLAW_GATEWAY_TOKEN"
TOKEN_FILE_FIX = "delete it, then run `claw init` to write a new one (clients then need the new token)"
"""What to do about a token file that cannot be used."""


def resolve_token(paths: Paths, environ: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """`(token, source)`, source being `env`, `file` or `none`; only the source may be logged."""
    env = os.environ if environ is None else environ
    value = (env.get(TOKEN_ENV) or "").strip()
    if value:
        return value, "env"
    try:
        text = paths.token_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None, "none"
    except OSError as exc:
        raise ConfigError(f"cannot read the gateway token file {paths.token_file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"the gateway token file {paths.token_file} is not UTF-8 text; {TOKEN_FILE_FIX}") from None
    return (text, "file") if text else (None, "none")


def create_token_file(paths: Paths) -> str:
    """Write a new random token to the token file (mode 0600, never overwriting one) and return it."""
    from claw.paths import ensure_private_dir

    ensure_private_dir(paths.token_file.parent)
    token = secrets.token_urlsafe(32)
    fd = os.open(paths.token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(token)
    return token
