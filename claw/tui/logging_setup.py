"""The console logs to a file: anything written to the terminal would tear the screen it draws on."""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

from claw.paths import ensure_private_dir

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_to_file(path: Path, level: int = logging.INFO) -> Path:
    """Send every log record to `path` (rotated at 2 MB, 3 kept) and nowhere else."""
    ensure_private_dir(path.parent)
    handler = RotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    return path
