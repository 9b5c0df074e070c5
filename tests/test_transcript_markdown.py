"""Markdown export of a transcript."""

from __future__ import annotations

from pathlib import Path

from claw.store.transcript import Transcript
from claw.transcript_markdown import transcript_to_markdown


def _session(tmp_path: Path) -> list[dict[str, object]]:
    transcript = Transcript(tmp_path / "s.jsonl")
    first = transcript.append({"role": "user", "content": "What is in SOUL.md?"})
    transcript.append(
        {"type": "compaction", "summary": "User set up claw.\nAsked about files.", "firstKeptId": first["id"]}
    )
    call = {"id": "call_7", "name": "read", "arguments": '{"path":"SOUL.md","limit":10}'}
    transcript.append({"role": "assistant", "content": "Let me look.", "toolCalls": [call]})
    transcript.append(
        {
            "role": "tool",
            "toolCallId": "call_7",
            "name": "read",
            "content": "# Soul\nBe kind. ```code```\n" + "z" * 9000,
        }
    )
    bad = {"id": "call_8", "name": "exec", "arguments": "{not json"}
    transcript.append({"role": "assistant", "content": "", "toolCalls": [bad]})
    transcript.append(
        {"role": "tool", "toolCallId": "call_8", "name": "exec", "content": "denied", "isError": True}
    )
    transcript.append({"role": "assistant", "content": "It says: be kind.", "aborted": True})
    entries = transcript.read()
    transcript.close()
    return entries


def test_markdown_has_messages_tool_calls_results_and_compaction(tmp_path: Path) -> None:
    markdown = transcript_to_markdown(_session(tmp_path), title="agent:main:main")
    assert markdown.startswith("# agent:main:main\n")
    assert "## User · " in markdown and "What is in SOUL.md?" in markdown
    assert "## Assistant · " in markdown and "Let me look." in markdown
    assert "**Tool call** `read` (`call_7`)" in markdown
    assert '"path": "SOUL.md"' in markdown and '"limit": 10' in markdown  # pretty-printed arguments
    assert "**Tool result** `read` (`call_7`)" in markdown
    assert "Be kind." in markdown
    assert "**Tool call** `exec` (`call_8`)" in markdown and "{not json" in markdown
    assert "**Tool error** `exec` (`call_8`)" in markdown and "denied" in markdown
    assert "> **Compaction summary**" in markdown and "> User set up claw." in markdown
    assert "_(aborted)_" in markdown


def test_long_results_are_cut_and_fences_cannot_be_closed_by_content(tmp_path: Path) -> None:
    markdown = transcript_to_markdown(_session(tmp_path), title="t", result_limit=100)
    assert "z" * 9000 not in markdown
    assert "more characters cut]" in markdown
    # the result contains ``` so its fence must be longer
    assert "````\n# Soul" in markdown


def test_empty_transcript(tmp_path: Path) -> None:
    assert transcript_to_markdown([], title="empty") == "# empty\n"
