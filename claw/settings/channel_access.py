"""The access vocabulary every platform's `[channels.<name>]` settings share: who may talk (`dmPolicy`,
`groupPolicy`, the `"*"` wildcard), how ids and secrets are read.

Its own module so that `claw.settings.channels` (which types one field per platform) and each platform's
settings module (`telegram`'s in settings.py, `discord_settings`, `feishu_settings`, …) import one source
instead of restating it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

DmPolicy = Literal["pairing", "allowlist", "open", "disabled"]
GroupPolicy = Literal["allowlist", "open", "disabled"]
WILDCARD = "*"


def str_ids(value: Any) -> Any:
    """Sender, chat and group ids may be written as numbers (Telegram's and Discord's are); they are
    compared as strings. A `mode="before"` field validator."""
    if isinstance(value, list | tuple):
        return tuple(str(v).strip() for v in value)
    return value


def secret_value(literal: str | None, env_name: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The literal secret, else the named environment variable's value; None when neither is set."""
    if literal and literal.strip():
        return literal.strip()
    if env_name:
        value = (os.environ if environ is None else environ).get(env_name, "").strip()
        return value or None
    return None


def check_access(dm_policy: str, allow_from: tuple[str, ...], where: str) -> None:
    """`open` needs an explicit "*": a policy that admits everyone is never the result of a typo."""
    if dm_policy == "open" and WILDCARD not in allow_from:
        raise ValueError(f'{where}dmPolicy "open" needs allowFrom = ["*"] (or use "pairing" / "allowlist")')
