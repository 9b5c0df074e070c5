"""A server that cut the prompt, told once per session: its `prompt_tokens` far below what claw sent.

Ollama past its `num_ctx` and llama.cpp past its `-c` drop the start of the prompt without an error;
the reply then comes from a model that never saw the system prompt. The usage the server reports is
the one sign of it: when it is well under claw's estimate of the prompt (`looks_truncated`), the run
gets a `warning` lifecycle event (a line in the console and on `claw agent`'s stderr), the gateway's
log a line, and the session entry a `promptTruncated` note that `/context` shows. Once per session:
the note is the mark, so a later turn (or another process's) does not say it again. Only for local
servers (`ContextManager.is_local`): a hosted API refuses an over-long prompt instead of cutting it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from claw.agent.context import AssembledContext
from claw.agent.turn import Turn
from claw.providers.base import Usage
from claw.providers.truncation import looks_truncated
from claw.store.transcript import utc_now_iso
from claw.vocab import run_event
from claw.vocab.run_event import Stream

log = logging.getLogger(__name__)

NOTE = "promptTruncated"
"""The session entry's `extra` key: `{reportedTokens, estimatedTokens, window, model, at}`."""


def sent_tokens(prompt: AssembledContext) -> int:
    """claw's estimate of what the prompt sent: every section but the reply's reserve."""
    return sum(section.tokens for section in prompt.sections if section.name != "reserve")


async def check_truncation(turn: Turn, prompt: AssembledContext, usage: Usage, model: str | None) -> bool:
    """Warn when the call's reported prompt tokens say the server cut `prompt`; True when it warned now."""
    estimated = sent_tokens(prompt)
    if not looks_truncated(usage.input_tokens, estimated):
        return False
    sessions = turn.env.sessions
    entry = sessions.get(turn.session_key)
    if entry is None or NOTE in entry.extra:
        return False
    note: dict[str, Any] = {
        "reportedTokens": usage.input_tokens,
        "estimatedTokens": estimated,
        "window": prompt.window,
        "model": model,
        "at": utc_now_iso(),
    }
    await asyncio.to_thread(sessions.merge_extra, turn.session_key, {NOTE: note})
    message = truncation_message(note)
    # INFO, not WARNING: the event reaches the user already, and a `claw agent` that sets up no logging would
    # print a warning a second time through Python's last-resort handler (as the router's failover says).
    log.info("%s: %s", turn.session_key, message)
    turn.emit(
        Stream.LIFECYCLE, run_event.truncation_warning(model, usage.input_tokens, estimated, prompt.window, message)
    )
    return True


def truncation_message(note: dict[str, Any]) -> str:
    """The one line that says it, from a session's `promptTruncated` note."""
    model = note.get("model")
    return (
        f"{model or 'the model'}'s server counted {note['reportedTokens']:,} prompt tokens where claw sent "
        f"~{note['estimatedTokens']:,}: it probably cut the start of the prompt (the system prompt first); its "
        f"context window is likely below the {note['window']:,} claw budgets for. "
        f"Check it: claw doctor model{' ' + model if model else ''}"
    )
