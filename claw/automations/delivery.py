"""Where a job's final reply goes: nowhere, a channel target, or a webhook (POST JSON, retried with backoff).

Channel targets (`telegram:<chatId>[:<topicId>]`) go into the channels' outbox, which
delivers and retries them. A job is only stored with a target some configured account can
reach (`check_reachable`); if that account is removed later, the reply is kept with the
run. Webhooks are sent from here with the standard library so that no extra
HTTP client is needed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from claw import __version__
from claw.errors import UsageError

if TYPE_CHECKING:
    from claw.channels.platform import Platform
    from claw.config import Config

log = logging.getLogger(__name__)

_CHANNEL = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
NO_REPLY = "NO_REPLY"


@dataclass(frozen=True, slots=True)
class DeliveryTarget:
    """`none`, `webhook` with a URL, or a channel with a target (chat id, user, …)."""

    kind: str  # none | webhook | channel
    channel: str = ""
    target: str = ""

    def __str__(self) -> str:
        if self.kind == "none":
            return "none"
        return f"{self.channel}:{self.target}"


def parse_delivery(text: str) -> DeliveryTarget:
    """`none`, `webhook:<http(s) URL>` or `<channel>:<target>`; a usage error otherwise."""
    raw = text.strip()
    if raw.lower() in ("", "none"):
        return DeliveryTarget("none")
    channel, sep, target = raw.partition(":")
    channel = channel.lower()
    if not sep or not target.strip():
        raise UsageError(f"invalid --deliver {text!r}: use none, <channel>:<target> or webhook:<url>")
    if channel == "webhook":
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"invalid --deliver {text!r}: a webhook needs an http:// or https:// URL with a host")
        return DeliveryTarget("webhook", "webhook", target)
    if not _CHANNEL.match(channel):
        raise UsageError(f"invalid --deliver {text!r}: {channel!r} is not a channel name")
    return DeliveryTarget("channel", channel, target.strip())


def check_reachable(target: DeliveryTarget, config: Config, platforms: Sequence[Platform]) -> None:
    """A usage error unless a configured channel account can deliver to `target` (`none` and webhooks need none).

    A platform is any `[channels.<name>]` section with accounts (Telegram, Slack, Discord, …): the same
    accounts as the outbox's adapters, built from `platforms` (composition's table, `CHANNEL_PLATFORMS`).
    Where the platform's adapter can judge the target itself (`check_target`), it does. A webhook hook is
    no target: `webhook:` always means a URL to POST to."""
    if target.kind != "channel":
        return
    sections = channel_platforms(config)
    given = f"--deliver {target}"
    name = target.channel
    settings = sections.get(name)
    if settings is None:
        configured = ", ".join(n for n, s in sections.items() if s.enabled and s.effective_accounts()) or "none"
        raise UsageError(
            f"unknown channel {name!r} in {given}: use none, webhook:<url> or a configured channel"
            f" (configured: {configured})"
        )
    if not settings.effective_accounts():
        raise UsageError(
            f"no {name} account is configured for {given}: add [channels.{name}] with its token"
            f" (see docs/channels/{name}.md) to {config.path}"
        )
    if not settings.enabled:
        raise UsageError(
            f"{name} is switched off for {given}: set enabled = true under [channels.{name}] in {config.path}"
        )
    from claw.channels.platform import build_adapters

    for (channel, _account), adapter in build_adapters(platforms, config).items():
        check = getattr(adapter, "check_target", None) if channel == name else None
        problem = check(target.target) if check is not None else None
        if problem:
            raise UsageError(f"invalid {given}: {problem}")


def channel_platforms(config: Config) -> dict[str, Any]:
    """`[channels.<name>]` sections that hold accounts (`effective_accounts()`), by name."""
    channels = config.channels
    return {
        name: section
        for name in type(channels).model_fields
        if callable(getattr(section := getattr(channels, name), "effective_accounts", None))
    }


def shown(delivery: str) -> str:
    """A stored target for a listing: a webhook URL without its credentials or query, which may hold a token."""
    target = parse_delivery(delivery)
    return f"webhook:{_safe(target.target)}" if target.kind == "webhook" else str(target)


def webhook_payload(job: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "automation.run",
        "jobId": job["id"],
        "jobName": job["name"],
        "agentId": job["agentId"],
        "runId": run["runId"],
        "ledgerId": run["id"],
        "status": run["status"],
        "startedAt": run["startedAt"],
        "finishedAt": run["finishedAt"],
        "error": run["error"],
        "output": run["output"],
    }


async def post_webhook(
    url: str, payload: dict[str, Any], *, timeout: float, retry_delays: Sequence[float], idempotency_key: str
) -> tuple[bool, str | None]:
    """POST `payload`; retry network errors, 429 and 5xx after each of `retry_delays`. (delivered?, last error)."""
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    error: str | None = None
    for attempt in range(len(retry_delays) + 1):
        if attempt:
            await asyncio.sleep(retry_delays[attempt - 1])
        status, error = await asyncio.to_thread(_post, url, body, timeout, idempotency_key)
        if status is not None and 200 <= status < 300:
            return True, None
        if status is not None and status < 500 and status not in (408, 429):
            break  # the receiver refused it for good; asking again will not help
        log.info("webhook %s: attempt %d failed: %s", _safe(url), attempt + 1, error)
    return False, error


def _post(url: str, body: bytes, timeout: float, idempotency_key: str) -> tuple[int | None, str | None]:
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": f"claw/{__version__}",
            "Idempotency-Key": idempotency_key,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (scheme checked on input)
            return response.status, None
    except urllib.error.HTTPError as exc:
        return exc.code, f"HTTP {exc.code} from {_safe(url)}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return None, f"cannot reach {_safe(url)}: {reason}"


def _safe(url: str) -> str:
    """The URL without credentials or query (which may hold a token), for logs and the ledger."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"
