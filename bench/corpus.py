"""Made-up but realistic data for the benchmarks: bootstrap files and a long transcript.

Everything is generated from a seeded `random.Random`, so two runs measure the same bytes.
The transcript is written through the real `Transcript.append`, so its format is exactly
what claw writes: user messages, assistant replies, assistant tool calls (one to three per
message, sometimes with text before them) each followed by its tool results.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from claw.store.transcript import Transcript

_VOCABULARY = (
    "the a to of and in that is for it on with as this be are was by at or from but not have you we can "
    "will which file config session agent model reply message tool read write edit exec workspace gateway "
    "channel token budget context history summary memory skill server request response stream error retry "
    "timeout queue lane event run user assistant system prompt note daily plan meeting draft email list "
    "check build test deploy branch commit review patch issue fix bug feature release version python shell "
    "path directory output input value key table row column date time week today tomorrow project report "
    "idea question answer because when then after before again only also still just more less first last "
    "small large fast slow good better clear short long simple careful quick safe local remote home office"
)
WORDS = _VOCABULARY.split()

BOOTSTRAP_SIZES = {
    "SOUL.md": 16 * 1024,
    "AGENTS.md": 30 * 1024,
    "TOOLS.md": 24 * 1024,
    "IDENTITY.md": 10 * 1024,
    "USER.md": 20 * 1024,
}
"""100 KB in all; AGENTS.md, TOOLS.md and USER.md are over the 20,000-char cap, so trimming runs too."""

MODEL_REF = "openai/test-model"


def prose(rng: random.Random, chars: int) -> str:
    """Sentences of plausible words, about `chars` characters long."""
    sentences: list[str] = []
    size = 0
    while size < chars:
        words = rng.choices(WORDS, k=rng.randint(6, 18))
        sentence = " ".join(words).capitalize() + rng.choice(".....?!")
        sentences.append(sentence)
        size += len(sentence) + 1
    return " ".join(sentences)[:chars]


def markdown(rng: random.Random, title: str, size: int) -> str:
    """A markdown document of `size` bytes: headings, paragraphs and bullet lists."""
    parts = [f"# {title}\n"]
    total = len(parts[0])
    while total < size:
        block = rng.random()
        if block < 0.15:
            text = f"\n## {prose(rng, rng.randint(15, 40)).rstrip('.?!')}\n"
        elif block < 0.55:
            text = "\n" + "\n".join(f"- {prose(rng, rng.randint(30, 110))}" for _ in range(rng.randint(2, 6))) + "\n"
        else:
            text = "\n" + prose(rng, rng.randint(200, 700)) + "\n"
        parts.append(text)
        total += len(text.encode())
    return "".join(parts).encode()[:size].decode(errors="ignore")


def write_bootstrap(workspace: Path, rng: random.Random) -> int:
    """Write the five bootstrap files (100 KB in all) into `workspace`; returns the bytes written."""
    workspace.mkdir(parents=True, exist_ok=True)
    written = 0
    for name, size in BOOTSTRAP_SIZES.items():
        text = markdown(rng, name.removesuffix(".md").title(), size)
        (workspace / name).write_text(text, encoding="utf-8")
        written += len(text.encode())
    return written


def _tool_call(rng: random.Random, n: int) -> tuple[dict[str, str], str]:
    """One tool call entry and the text of its result."""
    kind = rng.choices(("read", "exec", "write", "edit"), weights=(5, 3, 1, 1))[0]
    call_id = f"call_{n}_{rng.getrandbits(32):08x}"
    path = f"{rng.choice(('notes', 'memory', 'projects', 'drafts'))}/{rng.choice(WORDS)}.md"
    if kind == "read":
        args: dict[str, Any] = {"path": path}
        result = markdown(rng, path, rng.randint(300, 6000))
    elif kind == "exec":
        args = {"command": f"grep -rn {rng.choice(WORDS)} {path.split('/')[0]}"}
        result = "\n".join(f"{path}:{i}: {prose(rng, rng.randint(20, 90))}" for i in range(rng.randint(2, 30)))
    elif kind == "write":
        content = markdown(rng, path, rng.randint(200, 2500))
        args = {"path": path, "content": content}
        result = f"wrote {len(content.encode())} bytes to {path}"
    else:
        args = {"path": path, "oldText": prose(rng, 40), "newText": prose(rng, 60)}
        result = f"edited {path}: replaced 1 occurrence"
    return {"id": call_id, "name": kind, "arguments": json.dumps(args)}, result


def _exchange(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """One user turn: the user's message, maybe tool rounds, and the final reply."""
    run_id = f"run-{n:05d}"
    entries: list[dict[str, Any]] = [{"role": "user", "content": prose(rng, rng.randint(40, 600)), "runId": run_id}]
    if rng.random() < 0.35:
        for _round in range(rng.randint(1, 2)):
            calls = [_tool_call(rng, n) for _ in range(rng.choices((1, 2, 3), weights=(6, 3, 1))[0])]
            text = prose(rng, rng.randint(20, 120)) if rng.random() < 0.4 else ""
            entries.append(
                {
                    "role": "assistant",
                    "content": text,
                    "runId": run_id,
                    "model": MODEL_REF,
                    "toolCalls": [call for call, _result in calls],
                }
            )
            for call, result in calls:
                entries.append(
                    {
                        "role": "tool",
                        "toolCallId": call["id"],
                        "name": call["name"],
                        "content": result,
                        "isError": rng.random() < 0.05,
                        "runId": run_id,
                    }
                )
    entries.append(
        {"role": "assistant", "content": prose(rng, rng.randint(80, 1500)), "runId": run_id, "model": MODEL_REF}
    )
    return entries


def write_transcript(transcript: Transcript, messages: int, rng: random.Random) -> Counter[str]:
    """Append exactly `messages` entries to `transcript`; returns how many of each role."""
    counts: Counter[str] = Counter()
    n = 0
    while sum(counts.values()) < messages:
        remaining = messages - sum(counts.values())
        entries = _exchange(rng, n)
        if len(entries) > remaining:  # never leave a tool call without its result at the end
            entries = entries[:1] + entries[-1:] if remaining >= 2 else entries[:1]
        for entry in entries:
            transcript.append(entry)
            counts[entry["role"] + ("+calls" if "toolCalls" in entry else "")] += 1
        n += 1
    return counts
