"""Test-only crash points: `CLAW_FAULT=<point>` makes the process SIGKILL itself when it reaches `<point>`.

The variable is read once, when this module is imported (at gateway start); unset — always,
outside the crash tests — `fault()` is a no-op. Points used by the channels:

- `webhook.before_inbox_commit`: verified and normalised, nothing stored, no answer sent
- `inbox.after_commit_before_ack`: stored in the inbox, the sender not yet answered
- `inbox.before_process`: the processor picked a stored message, before any run
- `outbox.after_attempt_before_send`: the attempt is recorded, the platform not yet called
- `outbox.after_send_before_ack`: the platform took a part, its success not yet recorded
- `outbox.between_parts`: one part of a split reply recorded as sent, the next not started

A point may carry a count, `CLAW_FAULT=outbox.between_parts@2`: the second time it is reached.
"""

from __future__ import annotations

import logging
import os
import signal

log = logging.getLogger(__name__)

FAULT_ENV = "CLAW_FAULT"
_point, _, _nth = os.environ.get(FAULT_ENV, "").partition("@")
_remaining = int(_nth) if _nth.isdigit() else 1


def fault(point: str) -> None:
    """SIGKILL this process if `CLAW_FAULT` names `point` (and this is the n-th time it is reached)."""
    global _remaining
    if not _point or point != _point:
        return
    _remaining -= 1
    if _remaining > 0:
        return
    log.warning("CLAW_FAULT: killing this process at %s", point)
    for handler in logging.getLogger().handlers:
        handler.flush()
    os.kill(os.getpid(), signal.SIGKILL)
