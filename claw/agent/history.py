"""History: transcript entries → chat messages, chosen newest-first within a token budget.

Entries are grouped into units that are never split: a user message, or an
assistant message together with the results of every tool call it made. A
compaction entry replaces everything before its first kept entry with its
summary. Conversion is incremental, so a 10,000-message transcript costs only
the new entries on each turn.

A turn that did not end with a reply is said to have: an assistant entry that closes
an interrupted turn, or a reply cut short, goes to the model with a note saying so, and
a user message that got no reply at all (a turn still running elsewhere, or written
before turns were always closed) is followed by a note-only assistant message before the
next user message. Partial entries (a reply's text while it streams) are passed over:
the entry that supersedes them holds the whole text.

An assistant entry's `thinking` (the model's reasoning, stored apart from its reply) is left out:
servers such as DeepSeek's reject `reasoning_content` in the input, and the reasoning of past turns
only costs tokens. A view made with `send_reasoning` (a model whose `sendReasoning` is set, for
servers that require it back) sends it as the message's `reasoning_content`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from claw.agent.tokens import estimate_message
from claw.transcript_entries import REASONS, UNDO

MISSING_RESULT = "[no result: the run was interrupted before this tool finished]"
NO_REPLY = "[No reply: this message was not answered (the turn did not finish).]"
DETAIL_LIMIT = 300  # characters of a failed run's error kept in the note


@dataclass(slots=True)
class Unit:
    messages: list[dict[str, Any]]
    first_id: str | None
    starts_turn: bool
    run_id: str | None = None
    tokens: int = 0
    chars: int = 0
    """Characters of text and tool-call arguments (what pruning weighs)."""
    _open_calls: list[str] = field(default_factory=list)

    def seal(self) -> None:
        """Give every tool call without a result a placeholder result (APIs reject dangling calls);
        count the unit's tokens and characters."""
        for call_id in self._open_calls:
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": MISSING_RESULT})
        self._open_calls.clear()
        self.tokens = sum(estimate_message(m) for m in self.messages)
        self.chars = sum(message_chars(m) for m in self.messages)


def message_chars(message: dict[str, Any]) -> int:
    """Characters of a message's text content plus its tool calls' arguments."""
    content = message.get("content")
    size = len(content) if isinstance(content, str) else 0
    for call in message.get("tool_calls") or ():
        size += len(call.get("function", {}).get("arguments", ""))
    return size


def to_message(entry: dict[str, Any], *, send_reasoning: bool = False) -> dict[str, Any] | None:
    role = entry.get("role")
    content = entry.get("content")
    if role == "user":
        return {"role": "user", "content": content or ""}
    if role == "system":
        return {"role": "user", "content": f"[System event] {content or ''}"}
    if role == "assistant":
        note = interruption_note(entry)
        if note is not None:
            content = f"{content}\n\n{note}" if isinstance(content, str) and content else note
        msg: dict[str, Any] = {"role": "assistant", "content": content or None}
        calls = entry.get("toolCalls") or []
        if calls:
            msg["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c.get("arguments") or "{}"},
                }
                for c in calls
            ]
        elif not content:
            msg["content"] = ""
        thinking = entry.get("thinking")
        if send_reasoning and isinstance(thinking, str) and thinking:
            msg["reasoning_content"] = thinking
        return msg
    if role == "tool":
        return {"role": "tool", "tool_call_id": entry.get("toolCallId", ""), "content": content or ""}
    return None


def interruption_note(entry: dict[str, Any]) -> str | None:
    """What the model is told about an assistant entry that is not a whole reply, or None for one that is."""
    if entry.get("interrupted"):
        why = REASONS.get(str(entry.get("reason")), "the turn was interrupted")
        if isinstance(entry.get("error"), str):
            why = f"{why}: {entry['error'][:DETAIL_LIMIT]}"
    elif entry.get("aborted"):
        why = REASONS["aborted"]
    else:
        return None
    return f"[This reply is incomplete: {why}.]" if entry.get("content") else f"[No reply: {why}.]"


class HistoryView:
    """The units of one transcript, kept up to date as entries are appended."""

    def __init__(self, *, send_reasoning: bool = False) -> None:
        self.send_reasoning = send_reasoning
        """Assistant messages carry their entry's `thinking` as `reasoning_content` (see the module docstring)."""
        self.units: list[Unit] = []
        self._consumed = 0
        self._first_entry_id: str | None = None
        self._unanswered: Unit | None = None  # the newest user message with no assistant message after it

    def update(self, entries: list[dict[str, Any]]) -> None:
        first_id = entries[0].get("id") if entries else None
        if len(entries) < self._consumed or first_id != self._first_entry_id:
            self.units, self._consumed, self._unanswered = [], 0, None  # the transcript was replaced
        self._first_entry_id = first_id
        if self.units:
            self._consumed -= self._unit_entry_count.pop()
            self.units.pop()
        else:
            self._unit_entry_count: list[int] = []
        for entry in entries[self._consumed :]:
            self._add(entry)
        self._consumed = len(entries)
        for unit in self.units[-2:]:
            unit.seal()

    def select(self, budget_tokens: int) -> tuple[list[dict[str, Any]], int]:
        """The current turn whole, plus as many older units as fit in `budget_tokens`, in time order;
        and the tokens they take."""
        chosen = select_units(self.units, budget_tokens)
        return [m for unit in chosen for m in unit.messages], sum(u.tokens for u in chosen)

    def _add(self, entry: dict[str, Any]) -> None:
        if entry.get("type") == "compaction":
            self._compact(entry)
            return
        if entry.get("type") == UNDO:
            self._undo(entry)
            return
        msg = to_message(entry, send_reasoning=self.send_reasoning)
        if msg is None:
            self._count_into_last()
            return
        if msg["role"] == "tool":
            last = self.units[-1] if self.units else None
            if last is None or msg["tool_call_id"] not in last._open_calls:
                self._count_into_last()  # an orphan result: nothing to attach it to
                return
            last._open_calls.remove(msg["tool_call_id"])
            last.messages.append(msg)
            self._count_into_last()
            return
        run_id = entry.get("runId") if isinstance(entry.get("runId"), str) else None
        if entry.get("role") == "user":
            self._answer_unanswered(run_id)
        elif msg["role"] == "assistant":
            self._unanswered = None
        if self.units:
            self.units[-1].seal()
        unit = Unit([msg], entry.get("id"), starts_turn=entry.get("role") in ("user", "system"), run_id=run_id)
        unit._open_calls = [c["id"] for c in msg.get("tool_calls", ())]
        self.units.append(unit)
        self._unit_entry_count.append(1)
        if entry.get("role") == "user":
            self._unanswered = unit

    def _answer_unanswered(self, run_id: str | None) -> None:
        """Before a user message, say so if the one before it got no reply (unless both are one run's:
        messages steered or collected into a running turn)."""
        unit = self._unanswered
        if unit is None or (run_id is not None and unit.run_id == run_id):
            return
        unit.messages.append({"role": "assistant", "content": NO_REPLY})
        unit.seal()
        self._unanswered = None

    def _count_into_last(self) -> None:
        if self._unit_entry_count:
            self._unit_entry_count[-1] += 1
        else:
            self.units.append(Unit([], None, starts_turn=False))
            self._unit_entry_count.append(1)

    def _undo(self, entry: dict[str, Any]) -> None:
        """Drop the units from the one starting at the marker's `fromId` on (`claw.store.undo`). Their entries
        are counted into the unit before them, which `update` re-reads, so the undo is replayed with them."""
        from_id = entry.get("fromId")
        start = next((i for i in range(len(self.units) - 1, -1, -1) if self.units[i].first_id == from_id), None)
        if start is None:  # nothing of ours to undo (a marker naming an entry compacted away)
            self._count_into_last()
            return
        dropped = sum(self._unit_entry_count[start:]) + 1  # and the marker itself
        del self.units[start:], self._unit_entry_count[start:]
        self._unanswered = None
        if self._unit_entry_count:
            self._unit_entry_count[-1] += dropped
        else:
            self.units.append(Unit([], None, starts_turn=False))
            self._unit_entry_count.append(dropped)

    def _compact(self, entry: dict[str, Any]) -> None:
        kept_id = entry.get("firstKeptId")
        keep_from = next((i for i, u in enumerate(self.units) if u.first_id == kept_id), len(self.units))
        summary = Unit(
            [
                {
                    "role": "user",
                    "content": f"[Summary of the earlier conversation]\n{entry.get('summary', '')}",
                }
            ],
            "compaction",
            starts_turn=False,
        )
        summary.seal()
        dropped = sum(self._unit_entry_count[:keep_from])
        self.units = [summary, *self.units[keep_from:]]
        self._unit_entry_count = [dropped, *self._unit_entry_count[keep_from:]]
        # The compaction entry is the last line of the file so far: count it into the last unit, which
        # `update` re-reads from the file, so the compaction is replayed instead of the last unit lost.
        self._unit_entry_count[-1] += 1


def current_turn_start(units: list[Unit]) -> int:
    """Index of the unit that starts the newest turn (0 when none does)."""
    for i in range(len(units) - 1, -1, -1):
        if units[i].starts_turn:
            return i
    return 0


def select_units(units: list[Unit], budget_tokens: int) -> list[Unit]:
    """The current turn whole, plus as many older units as fit in `budget_tokens`, in time order;
    a compaction summary comes first whenever older units were left out."""
    if not units:
        return []
    start = current_turn_start(units)
    used = sum(u.tokens for u in units[start:])
    first = start
    while first > 0 and used + units[first - 1].tokens <= budget_tokens:
        first -= 1
        used += units[first].tokens
    summary = units[0] if units[0].first_id == "compaction" and first > 0 else None
    return ([summary] if summary else []) + units[first:]
