"""The Skills section of the system prompt: a compact `<available_skills>` list.

It carries names, descriptions and locations, never bodies: the model reads a SKILL.md
with the `read` tool when a skill applies. The list is capped by count and by characters;
over the character budget it falls back to shortened descriptions, then to names and
locations only, and says how many skills it left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from claw.skills.skill import Skill

SHORT_DESCRIPTION_CHARS = 80

# `xml.sax.saxutils.escape` does the same, but importing it pulls in urllib.request, http.client, email and ssl
# (~0.2 s on a turn that needs none of them).
_XML_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def escape(text: str) -> str:
    """`text` with `&`, `<` and `>` escaped for XML element content."""
    return text.translate(_XML_ESCAPES)


HEADER = """## Skills
Skills are instructions for particular kinds of task, each in a SKILL.md file. Before you answer, look through the
skills listed below: when one clearly fits the request, read its SKILL.md with the read tool (at the location given)
and follow it. Read at most one skill up front, and none when nothing fits. Relative paths inside a SKILL.md are
relative to its folder."""


@dataclass(frozen=True, slots=True)
class PromptEntry:
    """One skill as the prompt lists it."""

    name: str
    description: str
    location: str


@dataclass(frozen=True, slots=True)
class PromptList:
    """The entries that fit, how many skills were candidates, and how descriptions were cut."""

    entries: tuple[PromptEntry, ...]
    total: int
    descriptions: str = "full"  # full | short | none


def candidates(skills: list[Skill]) -> list[PromptEntry]:
    """Entries for the skills the model may see (`disable-model-invocation` ones are left out)."""
    return [PromptEntry(s.name, s.description, str(s.file)) for s in skills if not s.disable_model_invocation]


def fit(entries: list[PromptEntry], *, max_count: int, max_chars: int) -> PromptList:
    """As many entries as the caps allow, descriptions shortened or dropped before skills are."""
    chosen = entries[:max_count]
    if _block_chars(chosen) <= max_chars:
        return PromptList(tuple(chosen), len(entries))
    short = [PromptEntry(e.name, _shorten(e.description), e.location) for e in chosen]
    if _block_chars(short) <= max_chars:
        return PromptList(tuple(short), len(entries), "short")
    kept: list[PromptEntry] = []
    used = _block_chars([])
    for entry in chosen:
        bare = PromptEntry(entry.name, "", entry.location)
        cost = len(_line(bare)) + 1
        if used + cost > max_chars:
            break
        kept.append(bare)
        used += cost
    return PromptList(tuple(kept), len(entries), "none")


def render(listing: PromptList) -> str | None:
    """The whole section, or None when there is no skill to offer."""
    if not listing.entries:
        if listing.total:
            return f"{HEADER}\n{_truncation_note(listing)}"
        return None
    text = f"{HEADER}\n{_block(list(listing.entries))}"
    if len(listing.entries) < listing.total or listing.descriptions != "full":
        text += "\n" + _truncation_note(listing)
    return text


def _truncation_note(listing: PromptList) -> str:
    how = {"full": "", "short": "; descriptions shortened", "none": "; descriptions omitted"}[listing.descriptions]
    return (
        f"⚠️ Skills truncated: included {len(listing.entries)} of {listing.total}{how}. "
        "The user can run `claw skills check` to see them all."
    )


def _line(entry: PromptEntry) -> str:
    description = f"<description>{escape(entry.description)}</description>" if entry.description else ""
    return (
        f"  <skill><name>{escape(entry.name)}</name>{description}<location>{escape(entry.location)}</location></skill>"
    )


def _block(entries: list[PromptEntry]) -> str:
    return "\n".join(["<available_skills>", *(_line(e) for e in entries), "</available_skills>"])


def _block_chars(entries: list[PromptEntry]) -> int:
    return len(_block(entries))


def _shorten(text: str) -> str:
    return text if len(text) <= SHORT_DESCRIPTION_CHARS else text[: SHORT_DESCRIPTION_CHARS - 1].rstrip() + "…"
