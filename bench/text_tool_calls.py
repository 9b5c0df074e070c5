"""What reading tool calls from text costs a stream: the content filter's time per streamed chunk, auto-detect on.

Run from the repo root:  python -m bench.text_tool_calls  [--replies 200] [--seed 7]

Every content delta of a response passes `claw.agent.text_calls.TextCalls.feed` (over
`claw.providers.text_tools.stream.TextStream`), so its cost is paid per chunk of every reply; at 1,000
tokens/s a chunk arrives every 1 ms. Replies are built with a fixed seed, each cut into the chunks a
server sends (one word with its spacing, as most do; or 1-4 characters, as llama.cpp's byte-level
tokens can), and fed through a fresh filter for `toolCallFormat = "auto"` with claw's tools offered.
Each `feed` is timed alone (`perf_counter_ns`; the timer's own cost is measured and printed). Kinds:

  prose      words only: the fast path (no `<` or `[`)
  markdown   links, `[1]` references, `a < b`, `<br>`, code with brackets: every marker candidate is checked
  think      a `<think>` block of prose, then the reply (tags split across chunks)
  hermes     text, then a `<tool_call>{…}</tool_call>` held to the end
  pythonic   a reply that opens `[read(path=…)]`, held from its first character

Also per reply: `finish` (the end of the stream: parse the held markup into calls), once per response.

Target (issue 20): p50 per chunk under 20 µs, over all kinds and chunkings.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from bench.corpus import WORDS
from bench.report import Target, finish, machine_line, percentile
from claw.agent.text_calls import TextCalls

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
    for name in ("read", "write", "edit", "exec", "memory_search", "sessions_search")
]
KINDS = ("prose", "markdown", "think", "hermes", "pythonic")


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(WORDS, k=words)).capitalize() + "."


def make_reply(kind: str, rng: random.Random) -> str:
    prose = " ".join(_sentence(rng, rng.randint(8, 20)) for _ in range(rng.randint(6, 14)))
    if kind == "prose":
        return prose
    if kind == "markdown":
        extras = [
            "see [the docs](https://example.org/a) and [1]",
            "when a < b and b > c",
            "line<br>break",
            "`items[0] = values[i + 1]`",
            "- [ ] a task",
        ]
        return " ".join(f"{w} {rng.choice(extras)}" if rng.random() < 0.2 else w for w in prose.split(" "))
    if kind == "think":
        return f"<think>{_sentence(rng, 60)}</think>\n\n{prose}"
    if kind == "hermes":
        args = '{"name": "read", "arguments": {"path": "notes/' + rng.choice(WORDS) + '.md"}}'
        return f"{_sentence(rng, 12)} <tool_call>\n{args}\n</tool_call>"
    return f'[read(path="notes/{rng.choice(WORDS)}.md"), exec(command="ls -la")]'


def chunks(text: str, how: str, rng: random.Random) -> list[str]:
    if how == "words":
        out, word = [], ""
        for char in text:
            if char.isspace() and word and not word[-1].isspace():
                out.append(word)
                word = ""
            word += char
        return [*out, word] if word else out
    out, at = [], 0
    while at < len(text):
        step = rng.randint(1, 4)
        out.append(text[at : at + step])
        at += step
    return out


def timer_floor(samples: int = 100_000) -> float:
    """Nanoseconds two back-to-back `perf_counter_ns` calls take (subtracted from nothing, printed for scale)."""
    clock = time.perf_counter_ns
    spans = []
    for _ in range(samples):
        start = clock()
        spans.append(clock() - start)
    return percentile(spans, 50)


def measure(replies: int, seed: int) -> tuple[dict[tuple[str, str], list[float]], list[float]]:
    rng = random.Random(seed)
    per_chunk: dict[tuple[str, str], list[float]] = {}
    finishes: list[float] = []
    clock = time.perf_counter_ns
    for _ in range(replies):
        for kind in KINDS:
            text = make_reply(kind, rng)
            for how in ("words", "bytes"):
                content = TextCalls("auto", TOOLS)
                spans = per_chunk.setdefault((kind, how), [])
                feed = content.feed
                for piece in chunks(text, how, rng):
                    start = clock()
                    feed(piece)
                    spans.append((clock() - start) / 1000)
                start = clock()
                _reply, _thinking, calls = content.finish(native_calls=False, truncated=False)
                finishes.append((clock() - start) / 1000)
                if kind in ("hermes", "pythonic") and not calls:
                    raise SystemExit(f"bench: the {kind} reply gave no call; the filter is broken")
    return per_chunk, finishes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replies", type=int, default=200, help="replies of each kind (default 200)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(machine_line())
    print(f"timer floor: {timer_floor():.0f} ns per perf_counter_ns pair (included in every number below)")
    measure(max(1, args.replies // 10), args.seed + 1)  # warm-up
    per_chunk, finishes = measure(args.replies, args.seed)
    every: list[float] = []
    for (kind, how), spans in sorted(per_chunk.items()):
        every += spans
        print(
            f"{kind:<9} {how:<6} chunks {len(spans):>7}  p50 {percentile(spans, 50):6.2f}  "
            f"p90 {percentile(spans, 90):6.2f}  p99 {percentile(spans, 99):7.2f}  max {max(spans):8.2f} µs"
        )
    print(
        f"{'all':<16} chunks {len(every):>7}  p50 {percentile(every, 50):6.2f}  p90 {percentile(every, 90):6.2f}  "
        f"p99 {percentile(every, 99):7.2f} µs"
    )
    print(
        f"finish (once a reply, parse included): p50 {percentile(finishes, 50):.2f}  "
        f"p99 {percentile(finishes, 99):.2f} µs  (n={len(finishes)})"
    )
    return finish([Target("text tool calls: content filter per chunk p50", percentile(every, 50), 20, "µs")])


if __name__ == "__main__":
    sys.exit(main())
