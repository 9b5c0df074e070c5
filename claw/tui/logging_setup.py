"""The console logs to a file: anything written to the terminal would tear the screen it draws on.

The file is the gateway's kind (`claw.server.log_setup`): private (0600), and redacted, since an
in-process gateway logs into it too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from claw.paths import ensure_private_dir
from claw.server.log_setup import PrivateRotatingFileHandler, RedactSecrets

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_to_file(path: Path, level: int = logging.INFO, secrets: Iterable[str | None] = ()) -> Path:
    """Send every log record to `path` (rotated at 2 MB, 3 kept) and nowhere else, `secrets` redacted."""
    ensure_private_dir(path.parent)
    handler = PrivateRotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(RedactSecrets(secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()  # its file, when it had one
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    return path
