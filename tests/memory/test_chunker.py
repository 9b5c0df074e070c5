"""Chunks: about N tokens, overlapping, on line boundaries, with correct line ranges."""

from __future__ import annotations

from claw.memory.chunker import blank_comments, chunk_markdown


def test_chunks_cover_every_line_with_overlap_and_true_line_ranges() -> None:
    lines = [f"line {n:03d} " + "z" * 70 for n in range(1, 101)]  # ~80 chars a line, 100 lines
    text = "\n".join(lines)
    chunks = chunk_markdown(text, tokens=100, overlap=20)  # ~400 chars, ~80 chars overlap
    assert len(chunks) > 10
    for chunk in chunks:
        assert len(chunk.text) <= 400
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 100
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.start_line <= a.end_line  # overlap: the next chunk starts inside the previous one
        assert b.start_line > a.start_line  # and always moves on


def test_a_line_longer_than_a_chunk_is_split_on_the_same_line_number() -> None:
    text = "short\n" + "x" * 1000 + "\nend"
    chunks = chunk_markdown(text, tokens=100, overlap=0)
    long = [c for c in chunks if "x" in c.text]
    assert len(long) >= 3 and all(c.start_line <= 2 <= c.end_line for c in long)
    assert "".join(c.text.replace("short\n", "").replace("\nend", "") for c in long).count("x") == 1000


def test_blank_text_gives_no_chunks_and_hashes_follow_the_text() -> None:
    assert chunk_markdown("\n\n   \n") == []
    a, b = chunk_markdown("alpha"), chunk_markdown("alpha")
    assert a[0].hash == b[0].hash != chunk_markdown("beta")[0].hash


def test_comments_are_blanked_but_lines_keep_their_numbers() -> None:
    text = "one\n<!-- secret\nexample -->\nfour <!-- x --> four"
    blanked = blank_comments(text)
    assert "secret" not in blanked and "x" not in blanked.split("\n")[-1]
    assert blanked.count("\n") == text.count("\n")
    assert blanked.split("\n")[3].startswith("four")
