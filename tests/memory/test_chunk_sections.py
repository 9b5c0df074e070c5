"""Chunks follow the Markdown: a section per heading, blocks packed whole, code fences kept together."""

from __future__ import annotations

import random
from pathlib import Path

from claw.memory.chunker import blank_comments, chunk_markdown
from tests.memory.corpus import FILES
from tests.memory.first_contact import MEMORY_MD, SECTIONS

TEMPLATE = Path(__file__).resolve().parents[2] / "workspace-template" / "MEMORY.md"


def _ranges(chunks) -> list[tuple[int, int, str]]:
    return [(c.start_line, c.end_line, c.heading) for c in chunks]


def test_memory_md_is_cut_at_its_headings_each_chunk_with_its_section_lines() -> None:
    chunks = chunk_markdown(MEMORY_MD)
    assert _ranges(chunks) == [(start, end, heading) for heading, (start, end) in SECTIONS.items()]
    lines = MEMORY_MD.splitlines()
    for chunk in chunks:
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    assert chunks[3].text.startswith("## Preferences and decisions\n") and "Dvorak" in chunks[3].text


def test_template_headings_with_only_a_comment_under_them_give_no_chunk() -> None:
    chunks = chunk_markdown(blank_comments(TEMPLATE.read_text(encoding="utf-8")))
    assert [c.heading for c in chunks] == ["MEMORY.md: long-term memory"]  # the introduction only
    assert "## People" not in chunks[0].text


def test_heading_titles_nest_by_level_and_odd_headings_are_read_right() -> None:
    text = "# A\n## B ##\n### C\nunder c\n## D\nunder d\n#hashtag is text\n####### seven is text\n"
    chunks = chunk_markdown(text)
    assert _ranges(chunks) == [(1, 4, "A › B › C"), (5, 8, "A › D")]
    assert chunks[0].text.startswith("# A\n## B ##\n### C")  # empty parents join the first text below them
    assert "#hashtag" in chunks[1].text


def test_a_code_fence_is_one_block_never_split_when_it_fits() -> None:
    intro = "Notes on the deploy script. " * 8  # ~220 characters
    fence = ["```bash", "# not a heading: a shell comment", "", *[f"echo step {n} done" for n in range(14)], "```"]
    text = "\n".join(["## Deploy", "", intro.strip(), "", *fence, "", "After the script: check the logs."])
    chunks = chunk_markdown(text, tokens=100, overlap=0)  # ~400 characters a chunk
    assert all(c.heading == "Deploy" for c in chunks)  # the comment inside the fence is no heading
    with_fence = [c for c in chunks if "```bash" in c.text]
    assert len(with_fence) == 1 and with_fence[0].text.count("```") == 2  # opened and closed in one chunk
    assert with_fence[0].start_line == text.splitlines().index("```bash") + 1  # too big to join the intro


def test_paragraphs_are_packed_whole_and_overlap_only_inside_a_section() -> None:
    paragraphs = [f"Paragraph {n}: " + " ".join(f"w{n}{i}" for i in range(30)) for n in range(6)]  # ~150 chars
    text = "# Long\n\n" + "\n\n".join(paragraphs) + "\n\n# Next\n\nshort one\n"
    lines = text.splitlines()
    chunks = chunk_markdown(text, tokens=100, overlap=50)  # ~400 characters, ~200 of overlap
    long, nxt = [c for c in chunks if c.heading == "Long"], [c for c in chunks if c.heading == "Next"]
    assert len(long) >= 3 and len(nxt) == 1
    starts = {lines.index(p) + 1 for p in paragraphs} | {1}
    for chunk in long:
        assert len(chunk.text) <= 400
        assert chunk.start_line in starts and lines[chunk.end_line - 1] in paragraphs  # whole paragraphs
    for a, b in zip(long, long[1:], strict=False):
        assert a.start_line < b.start_line <= a.end_line  # each repeats the previous one's last paragraph
    assert nxt[0].start_line > long[-1].end_line and "Paragraph" not in nxt[0].text


def test_a_block_larger_than_a_chunk_is_cut_at_lines_and_every_line_is_kept() -> None:
    fence = ["```", *[f"log line {n:02d} " + "." * 30 for n in range(40)], "```"]  # ~1,800 characters
    text = "# Logs\n" + "\n".join(fence)
    chunks = chunk_markdown(text, tokens=100, overlap=10)
    assert len(chunks) >= 4 and all(len(c.text) <= 400 for c in chunks)
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    assert covered == set(range(1, len(fence) + 2))


def test_every_line_of_every_corpus_file_is_in_a_chunk_with_its_true_line_numbers() -> None:
    for rel, raw in {**FILES, "first-contact/MEMORY.md": MEMORY_MD}.items():
        text = blank_comments(raw)
        lines = text.splitlines()
        chunks = chunk_markdown(text, tokens=40, overlap=8)
        covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
        # Every line with words is in a chunk; only a heading with nothing under it may be left out.
        wanted = {n for n, line in enumerate(lines, start=1) if line.strip() and not line.startswith("#")}
        assert wanted <= covered, rel
        for chunk in chunks:
            assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line]), rel
            assert lines[chunk.start_line - 1].strip() and lines[chunk.end_line - 1].strip()


def test_the_hash_covers_the_headings_so_a_moved_paragraph_is_embedded_again() -> None:
    _, under_a = chunk_markdown("# A\nintro\n## Sub\nsame words\n")
    _, under_b = chunk_markdown("# B\nintro\n## Sub\nsame words\n")
    assert under_a.text == under_b.text and under_a.hash != under_b.hash


def _random_markdown(rng: random.Random) -> str:
    """Headings, paragraphs, lists and code fences of random sizes, with a few blank lines between."""
    out: list[str] = []
    for _ in range(rng.randint(3, 25)):
        kind = rng.choice(["heading", "paragraph", "paragraph", "list", "fence"])
        if kind == "heading":
            out.append("#" * rng.randint(1, 4) + f" Heading {rng.randint(0, 99)}")
        elif kind == "fence":
            out += ["```", *(f"code {n} " + "x" * rng.randint(0, 60) for n in range(rng.randint(1, 30))), "```"]
        else:
            prefix = "- " if kind == "list" else ""
            out += [prefix + " ".join(f"w{rng.randint(0, 999)}" for _ in range(rng.randint(1, 25))) for _ in range(3)]
        out += [""] * rng.randint(0, 2)
    return "\n".join(out)


def test_random_documents_keep_every_rule() -> None:
    rng = random.Random(20250309)
    for _ in range(300):
        text = _random_markdown(rng)
        lines = text.splitlines()
        tokens, overlap = rng.choice([(32, 0), (60, 10), (100, 30), (400, 80)])
        chunks = chunk_markdown(text, tokens=tokens, overlap=overlap)
        covered: set[int] = set()
        for chunk in chunks:
            assert len(chunk.text) <= tokens * 4
            assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
            body = chunk.text.splitlines()
            fenced = False  # a heading line may open a chunk (with its empty parents), never sit inside one
            for n, line in enumerate(body):
                fenced = fenced != line.startswith("```")
                if line.startswith("#") and not fenced:
                    assert all(b.startswith("#") or not b.strip() for b in body[:n]), chunk
            covered |= set(range(chunk.start_line, chunk.end_line + 1))
        words = {n for n, line in enumerate(lines, start=1) if line.strip() and not line.startswith("#")}
        assert words <= covered
        for a, b in zip(chunks, chunks[1:], strict=False):
            assert b.start_line > a.start_line and b.end_line > a.end_line  # in order, always moving on
