"""Event triggers of automations: `webhook:NAME` (a signed POST to `/automations/webhook/NAME`) and
`gmail:ADDRESS` (a Gmail Pub/Sub push to `/automations/gmail` for that mailbox)."""

from __future__ import annotations

import re
import secrets

from claw.errors import UsageError

WEBHOOK_PATH = "/automations/webhook/{name}"
GMAIL_PATH = "/automations/gmail"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_ADDRESS = re.compile(r"^[^@\s]{1,64}@[a-z0-9.-]{1,253}\.[a-z]{2,63}$")


def parse_trigger(text: str) -> str:
    """The trigger as stored (`webhook:name`, `gmail:address`, lower-cased), or a one-line refusal."""
    kind, sep, value = text.strip().partition(":")
    kind, value = kind.lower(), value.strip().lower()
    if sep and kind == "webhook" and _NAME.match(value):
        return f"webhook:{value}"
    if sep and kind == "gmail" and _ADDRESS.match(value):
        return f"gmail:{value}"
    raise UsageError(
        f"invalid --on {text!r}: use webhook:NAME (1-64 of a-z 0-9 _ -) or gmail:ADDRESS (the mailbox Gmail watches)"
    )


def new_secret(trigger: str) -> str | None:
    """The HMAC key a `webhook:` trigger's requests are signed with; Gmail pushes carry Google's own token."""
    return secrets.token_urlsafe(32) if trigger.startswith("webhook:") else None


def webhook_path(trigger: str) -> str | None:
    kind, _, name = trigger.partition(":")
    return WEBHOOK_PATH.format(name=name) if kind == "webhook" else GMAIL_PATH if kind == "gmail" else None


def setup_fields(trigger: str | None, secret: str | None) -> dict[str, str]:
    """What `automations.add` (and an `update` that sets `on`) adds to the job's wire form for a trigger: the
    path to POST to and, for a webhook, its key: the only time the key is shown."""
    if trigger is None:
        return {}
    path = webhook_path(trigger)
    return {**({"path": path} if path else {}), **({"secret": secret} if secret else {})}
