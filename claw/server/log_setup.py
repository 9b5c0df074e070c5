"""Logging for a long-lived gateway: stderr plus a private, rotating file, with secrets redacted.

Nothing should log a secret in the first place; the redaction filter is the second
line of defence for the values claw knows (the gateway token, provider API keys) and for
credentials written into URLs (`http://user:password@host`), applied to every record the
handlers write, tracebacks included. Log files are 0600, whatever the umask, and so is a log
file an older claw left readable: it is tightened when it is opened.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from io import TextIOWrapper
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

from claw.paths import ensure_private_dir
from claw.redact import REDACTED, redact_urls

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_MIN_SECRET_CHARS = 8  # shorter values would redact ordinary words


class RedactSecrets(logging.Filter):
    """Replaces known secret values, and credentials in URLs, in a record's message and traceback."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        super().__init__()
        self._secrets = sorted({s for s in secrets if s and len(s) >= _MIN_SECRET_CHARS}, key=len, reverse=True)

    def _clean(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return redact_urls(text) if "@" in text else text

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self._clean(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._clean(record.exc_text)
        return True


class PrivateRotatingFileHandler(RotatingFileHandler):
    """A rotating log file of mode 0600: created so (the default would follow the umask), and made so
    when it exists already. Rotated files keep the mode, being renamed."""

    def _open(self) -> TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.fchmod(fd, 0o600)
        except BaseException:
            os.close(fd)
            raise
        return open(fd, "a", encoding=self.encoding, errors=self.errors)  # noqa: SIM115 (the handler owns it)


def setup_logging(log_file: Path, secrets: Iterable[str | None], *, verbose: bool = False) -> list[logging.Handler]:
    """Send the root logger to stderr and `log_file`; return the handlers (to remove them again)."""
    ensure_private_dir(log_file.parent)
    redact = RedactSecrets(secrets)
    formatter = logging.Formatter(FORMAT)
    handlers: list[logging.Handler] = [
        logging.StreamHandler(),
        PrivateRotatingFileHandler(log_file, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8"),
    ]
    root = logging.getLogger()
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.addFilter(redact)
        root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    return handlers


def known_secrets(token: str | None, providers: dict[str, Any], environ: dict[str, str] | None = None) -> list[str]:
    """The secret values claw can name: the gateway token and every configured or environment API key."""
    env = dict(os.environ if environ is None else environ)
    found = [token or "", env.get("OPENAI_API_KEY", "")]
    for provider in providers.values():
        found.append(getattr(provider, "api_key", None) or "")
        key_env = getattr(provider, "api_key_env", None)
        if key_env:
            found.append(env.get(key_env, ""))
    return [value for value in found if value]
