"""command-logger: one JSON line per command event in <state dir>/logs/commands.log (mode 0600)."""

from __future__ import annotations

import json
import os

from claw.hooks.events import CommandEvent
from claw.paths import ensure_private_dir

LOG_NAME = "commands.log"


def handle(event: CommandEvent) -> None:
    record = {
        "timestamp": event.timestamp,
        "event": event.name,
        "action": event.action,
        "sessionKey": event.session_key,
        "agentId": event.agent_id,
        "channel": event.channel,
        "senderId": event.sender_id,
    }
    logs = ensure_private_dir(event.state_dir / "logs")
    line = json.dumps(record, ensure_ascii=False) + "\n"
    # One write on an O_APPEND descriptor: lines from concurrent events never interleave.
    fd = os.open(logs / LOG_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)
