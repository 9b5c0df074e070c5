"""The bundled `session-memory` hook's work: on /new or /reset, note what the ended session was about.

The last 15 user and assistant messages of the ended session go to the session's model with a
request for a title and a few bullet points; without a model, or when the call fails or times
out, an extractive summary stands in (the first sentence of each message, the title from the
first user message). The note goes to `<workspace>/memory/YYYY-MM-DD-<slug>.md`, the slug made
from the title (`-2`, `-3` … when that name is taken), where memory search finds it later.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import unicodedata
from datetime import datetime
from pathlib import Path

from claw.gateway.hook_events import CommandEvent
from claw.paths import ensure_private_dir
from claw.providers.base import ModelError
from claw.store.transcript import Transcript
from claw.tools.workspace_paths import resolve_in_workspace

log = logging.getLogger(__name__)

LAST_MESSAGES = 15
MESSAGE_CHARS = 2_000
SENTENCE_CHARS = 200
SLUG_WORDS = 6
SLUG_CHARS = 48
_TRAILING = frozenset(["a", "an", "and", "at", "for", "from", "in", "of", "on", "or", "the", "to", "with"])

SYSTEM = (
    "You write short memory notes about a conversation between a user and an AI assistant that just ended. "
    "Do not invent anything and never copy secrets such as passwords or API keys."
)
REQUEST = """The conversation (its last messages):

{conversation}

Write, in the conversation's language:
- on the first line, a title of 2 to 6 words naming its main topic (no quotes, no punctuation);
- then an empty line;
- then 3 to 8 short Markdown bullet points: what was asked, what was decided or learned, what is still open."""


async def save_session_summary(event: CommandEvent) -> Path | None:
    """Write the note for the session `event` ended; None when it had no messages to summarise."""
    if event.previous_transcript is None:
        return None
    messages = await asyncio.to_thread(last_messages, event.previous_transcript)
    if not messages:
        return None
    how = "extractive (no model configured)"
    title, body = extractive(messages)
    if event.model is not None:
        try:
            reply = await event.model.complete(SYSTEM, REQUEST.format(conversation=render(messages)))
            title, body = parse_reply(reply, fallback=(title, body))
            how = f"model {event.model.chain[0]}"
        except (ModelError, TimeoutError) as exc:
            reason = getattr(exc, "message", None) or type(exc).__name__
            how = f"extractive (the model call failed: {reason})"
            log.warning("session-memory: the model summary failed (%s); writing an extractive one", reason)
    now = datetime.now()
    previous = event.previous_session
    lines = [
        f"# {title}",
        "",
        f"- Date: {now:%Y-%m-%d %H:%M}",
        f"- Session: {event.session_key}" + (f" (id {previous.session_id[:8]})" if previous else ""),
        f"- Ended with: /{event.command}",
        f"- Summary: {how}",
        "",
        "## Summary",
        "",
        body.strip(),
    ]
    # memory/ is the agent's to write: a link there that leads out must not carry the note out (PathEscapeError).
    directory = await asyncio.to_thread(resolve_in_workspace, event.workspace, "memory")
    path = await asyncio.to_thread(write_note, directory, now, slugify(title), "\n".join(lines) + "\n")
    event.messages.append(f"Saved a summary of the previous session to memory/{path.name}.")
    return path


def last_messages(transcript: Path) -> list[tuple[str, str]]:
    """(role, text) of the last user and assistant messages with text, oldest first."""
    with Transcript(transcript) as reader:
        entries = reader.read()
    out: list[tuple[str, str]] = []
    for entry in entries:
        role = entry.get("role")
        text = (
            entry.get("display") if role == "user" and isinstance(entry.get("display"), str) else entry.get("content")
        )
        if role in ("user", "assistant") and isinstance(text, str) and text.strip():
            out.append((role, text.strip()[:MESSAGE_CHARS]))
    return out[-LAST_MESSAGES:]


def render(messages: list[tuple[str, str]]) -> str:
    return "\n\n".join(f"[{role}] {text}" for role, text in messages)


def extractive(messages: list[tuple[str, str]]) -> tuple[str, str]:
    """A title from the first user message and one bullet per message (its first sentence)."""
    first_user = next((text for role, text in messages if role == "user"), messages[0][1])
    words = [w.strip(".,;:!?\"'()") for w in first_sentence(first_user).split()][:SLUG_WORDS]
    while words and (not words[-1] or words[-1].lower() in _TRAILING):
        words.pop()
    title = " ".join(words) or "Session notes"
    bullets = [f"- {role}: {first_sentence(text)}" for role, text in messages]
    return title, "\n".join(bullets)


def first_sentence(text: str) -> str:
    line = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(\s|$)", line)
    sentence = match.group(1) if match else line
    return sentence if len(sentence) <= SENTENCE_CHARS else sentence[: SENTENCE_CHARS - 1] + "…"


def parse_reply(reply: str, *, fallback: tuple[str, str]) -> tuple[str, str]:
    """(title, bullets) from the model's reply: the first line is the title, the rest the summary."""
    lines = reply.strip().splitlines()
    head = lines[0].strip().lstrip("#*> ").strip()
    head = re.sub(r"^(title|topic)\s*:\s*", "", head, flags=re.IGNORECASE).strip().strip("\"'*`").strip()
    body = "\n".join(lines[1:]).strip()
    if not head or len(head) > 120:
        return fallback[0], reply.strip()
    return head, body or fallback[1]


def slugify(title: str) -> str:
    """`Database migration plan` → `database-migration-plan` (ASCII, at most 6 words / 48 chars)."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    slug = "-".join(re.findall(r"[a-z0-9]+", ascii_text)[:SLUG_WORDS])[:SLUG_CHARS].strip("-")
    return slug or "session"


def write_note(directory: Path, now: datetime, slug: str, text: str) -> Path:
    """Create `YYYY-MM-DD-<slug>.md` (never overwriting a note: `-2`, `-3` … instead)."""
    ensure_private_dir(directory)
    stem = f"{now:%Y-%m-%d}-{slug}"
    for attempt in range(1, 1000):
        path = directory / (f"{stem}.md" if attempt == 1 else f"{stem}-{attempt}.md")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        return path
    raise OSError(f"too many notes named {stem}*.md in {directory}")
