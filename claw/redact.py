"""Keeping secrets out of what claw prints and logs: credentials in URLs, and values of secret-like keys.

Everything that shows a configured URL (`claw doctor`, error messages, logs) passes it through
`redact_url`; everything that shows a piece of config (`claw config get`) passes it through
`mask_secrets`. Masking is by key name, because a secret's value has no recognisable shape:
`secret`, `token`, `password` and `apiKey` in any case or spelling (`botToken`, `webhook_secret`),
but not `secretEnv`-style keys, whose value is only the name of an environment variable, nor
counts such as `contextTokens`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"
_USERINFO_MARK = "***"

_SECRET_WORDS = frozenset(
    {"secret", "secrets", "token", "password", "passwords", "passwd", "passphrase", "credential", "credentials"}
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# `scheme://userinfo@` anywhere in free text: the userinfo may not hold a slash, a space or another `@`.
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@?#'\"<>]+@")


def key_words(key: str) -> list[str]:
    """`botTokenEnv` → `["bot", "token", "env"]`; `api_key` → `["api", "key"]`."""
    return [word.lower() for word in _WORD.findall(key)]


def is_secret_key(key: str) -> bool:
    """True for keys whose value is a secret (`apiKey`, `botToken`, `secret`, `db_password`);
    False for `secretEnv`, `apiKeyEnv` (names of variables) and plurals such as `maxTokens`."""
    words = key_words(key)
    if not words or words[-1] == "env":
        return False
    if any(word in _SECRET_WORDS for word in words):
        return True
    return any(first == "api" and second == "key" for first, second in zip(words, words[1:], strict=False))


def redact_url(url: str) -> str:
    """`url` without the password or token it may carry: userinfo becomes `***`, and secret-like query
    parameters (`?api_key=…`, `?token=…`) are masked. Text that is not a URL is returned as it is."""
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket: still scrub what looks like userinfo
        return redact_urls(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{_USERINFO_MARK}@{netloc.rpartition('@')[2]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_key(name) for name, _ in pairs):
            query = urlencode([(name, REDACTED if is_secret_key(name) else value) for name, value in pairs], safe="[]")
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def redact_urls(text: str) -> str:
    """Every `scheme://user:password@` in free text (an error message, a log line) with the userinfo masked."""
    return _URL_USERINFO.sub(rf"\g<1>{_USERINFO_MARK}@", text)


def mask_secrets(value: Any, key: str | None = None) -> Any:
    """A copy of a config value (mapping, list or scalar) safe to print: the value of every secret-like key
    is `[redacted]`, and credentials in URLs are masked. `key` is the name `value` itself is stored under."""
    if key is not None and is_secret_key(key) and value not in (None, "", [], {}):
        return REDACTED
    if isinstance(value, Mapping):
        return {k: mask_secrets(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_secrets(item) for item in value]
    if isinstance(value, str) and "://" in value:
        return redact_url(value)
    return value
