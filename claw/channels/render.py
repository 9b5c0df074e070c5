"""A reply's Markdown → the platform's format, split into parts no longer than the platform allows.

Splitting happens on the Markdown's own boundaries: between paragraphs first; a paragraph too
long by itself is cut between lines, then between words, then (a single huge word) anywhere; a
fenced code block too long by itself becomes several fenced blocks cut between lines, each
re-opened with the same language. Every block is rendered on its own and the parts are packed
from rendered blocks, so no part ever exceeds the limit after rendering (HTML escaping included).

Formats: `markdown` (unchanged), `plain`, `telegram-html` (Telegram's HTML parse mode:
`<b> <i> <s> <code> <pre> <a>`, everything else escaped, tags always balanced),
`dingtalk-markdown` (DingTalk's subset: headings, bold, italic, links, lists, quotes — no code, so a
code block becomes quoted lines with their indentation kept, inline code its bare text), and
`slack-mrkdwn` (Slack's mrkdwn: `*bold*`, `_italic_`, `~strike~`, `<url|text>` links, ``` blocks,
`&`, `<`, `>` escaped).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from claw.channels.adapter import TextFormat

_FENCE = re.compile(r"^(```|~~~)\s*([\w+#.-]*)\s*$")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\[([^\]\n]+)\]\(((?:https?|tg|mailto):[^\s)]+)\)")
_BOLD = re.compile(r"\*\*(?=\S)([^<>\n]+?)(?<=\S)\*\*|__(?=\S)([^<>\n]+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*<>\n]+?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_<>\n]+?)(?<=\S)_(?![\w_])")
_STRIKE = re.compile(r"~~(?=\S)([^<>\n]+?)(?<=\S)~~")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.MULTILINE)
_BULLET = re.compile(r"^(\s*)[-*+]\s+", re.MULTILINE)
_SEP = "\n\n"


def render_parts(markdown: str, text_format: TextFormat, limit: int) -> list[str]:
    """`markdown` rendered for the platform, in parts of at most `limit` characters (none if it is empty)."""
    render = RENDERERS[text_format]
    parts: list[str] = []
    current = ""
    for block in _fit(_blocks(markdown.strip()), render, limit):
        joined = f"{current}{_SEP}{block}" if current else block
        if len(joined) <= limit:
            current = joined
        else:
            parts.append(current)
            current = block
    if current:
        parts.append(current)
    return parts


def _blocks(text: str) -> list[tuple[str, str]]:
    """(`code` | `text`, source) blocks: fenced code blocks whole, other text split at blank lines."""
    blocks: list[tuple[str, str]] = []
    para: list[str] = []
    fence: list[str] | None = None
    for line in text.split("\n"):
        if fence is not None:
            fence.append(line)
            if line.strip() == fence[0].strip()[:3]:
                blocks.append(("code", "\n".join(fence)))
                fence = None
        elif _FENCE.match(line):
            if para:
                blocks.append(("text", "\n".join(para)))
                para = []
            fence = [line]
        elif not line.strip():
            if para:
                blocks.append(("text", "\n".join(para)))
                para = []
        else:
            para.append(line)
    if fence is not None:  # an unclosed fence: close it
        blocks.append(("code", "\n".join([*fence, fence[0].strip()[:3]])))
    if para:
        blocks.append(("text", "\n".join(para)))
    return blocks


def _fit(blocks: list[tuple[str, str]], render: Callable[[str], str], limit: int) -> list[str]:
    """Rendered blocks, each at most `limit` long (an oversized block is cut into several)."""
    out: list[str] = []
    for kind, source in blocks:
        rendered = render(source)
        if len(rendered) <= limit:
            out.append(rendered)
        elif kind == "code":
            out.extend(_cut_code(source, render, limit))
        else:
            out.extend(_cut_text(source, render, limit))
    return out


def _cut_code(source: str, render: Callable[[str], str], limit: int) -> list[str]:
    lines = source.split("\n")
    opener, closer = lines[0], lines[0].strip()[:3]
    body = lines[1:-1] if len(lines) > 1 and lines[-1].strip() == closer else lines[1:]
    wrap = lambda chunk: f"{opener}\n{chunk}\n{closer}"  # noqa: E731
    room = limit - len(render(wrap("")))
    pieces = _pack(body, "\n", lambda s: len(render(wrap(s))) - len(render(wrap(""))), max(room, 1))
    return [render(wrap(piece)) for piece in pieces]


def _cut_text(source: str, render: Callable[[str], str], limit: int) -> list[str]:
    pieces = _pack(source.split("\n"), "\n", lambda s: len(render(s)), limit)
    return [render(piece) for piece in pieces]


def _pack(units: list[str], sep: str, size: Callable[[str], int], limit: int) -> list[str]:
    """Join `units` with `sep` into pieces whose `size` is at most `limit`; split a unit that is too big
    between words, then anywhere."""
    pieces: list[str] = []
    current: str | None = None
    for unit in units:
        if size(unit) > limit:
            if current is not None:
                pieces.append(current)
                current = None
            pieces.extend(_split_unit(unit, size, limit))
            continue
        joined = unit if current is None else f"{current}{sep}{unit}"
        if size(joined) <= limit:
            current = joined
        else:
            pieces.append(current if current is not None else "")
            current = unit
    if current is not None:
        pieces.append(current)
    return [p for p in pieces if p.strip()]


def _split_unit(unit: str, size: Callable[[str], int], limit: int) -> list[str]:
    words = unit.split(" ")
    if len(words) > 1 and all(size(w) <= limit for w in words):
        return _pack(words, " ", size, limit)
    pieces, current = [], ""
    for char in unit:  # one huge word: cut anywhere
        if current and size(current + char) > limit:
            pieces.append(current)
            current = ""
        current += char
    return [*pieces, current] if current else pieces


def to_telegram_html(markdown: str) -> str:
    """One block of Markdown in Telegram's HTML: escaped text, balanced tags only."""
    lines = markdown.split("\n")
    fence = _FENCE.match(lines[0]) if lines else None
    if fence and len(lines) >= 2 and lines[-1].strip() == fence.group(1):
        code = html.escape("\n".join(lines[1:-1]), quote=False)
        lang = f' class="language-{fence.group(2)}"' if fence.group(2) else ""
        return f"<pre><code{lang}>{code}</code></pre>"
    out = []
    for i, segment in enumerate(_INLINE_CODE.split(markdown)):
        if i % 2:  # inside backticks: verbatim
            out.append(f"<code>{html.escape(segment, quote=False)}</code>")
        else:
            out.append(_inline(segment))
    return "".join(out)


def _inline(text: str) -> str:
    links: list[str] = []

    def keep_link(m: re.Match[str]) -> str:
        links.append(f'<a href="{html.escape(m.group(2))}">{_styles(html.escape(m.group(1), quote=False))}</a>')
        return f"\x00{len(links) - 1}\x00"

    text = _LINK.sub(keep_link, text)
    text = _styles(html.escape(text, quote=False))
    text = _HEADING.sub(lambda m: f"<b>{m.group(1)}</b>", text)
    text = _BULLET.sub(lambda m: f"{m.group(1)}• ", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: links[int(m.group(1))], text)


def _styles(text: str) -> str:
    text = _BOLD.sub(lambda m: f"<b>{m.group(1) or m.group(2)}</b>", text)
    text = _STRIKE.sub(lambda m: f"<s>{m.group(1)}</s>", text)
    return _ITALIC.sub(lambda m: f"<i>{m.group(1) or m.group(2)}</i>", text)


def to_plain(markdown: str) -> str:
    return markdown


_NBSP = "\u00a0"


def to_dingtalk_markdown(markdown: str) -> str:
    """One block of Markdown in DingTalk's subset. A fenced code block (DingTalk renders none) becomes a
    quote, one hard-broken line per code line, leading spaces kept as no-break spaces (a Markdown renderer
    would collapse them); inline code loses its backticks; `~~strike~~` (unsupported) its tildes; `__bold__`
    and `* item` take the spellings DingTalk knows (`**bold**`, `- item`)."""
    lines = markdown.split("\n")
    fence = _FENCE.match(lines[0]) if lines else None
    if fence and len(lines) >= 2 and lines[-1].strip() == fence.group(1):
        body = lines[1:-1] or [""]
        quoted = [f"> {_NBSP * (len(line) - len(line.lstrip(' ')))}{line.lstrip(' ')}".rstrip() for line in body]
        return "  \n".join(q if q != ">" else f"> {_NBSP}" for q in quoted)
    out = []
    for i, segment in enumerate(_INLINE_CODE.split(markdown)):
        if i % 2:  # inside backticks: the text itself
            out.append(segment)
        else:
            segment = _STRIKE.sub(lambda m: m.group(1), segment)
            segment = re.sub(r"(?<![\w_])__(?=\S)([^\n]+?)(?<=\S)__(?![\w_])", r"**\1**", segment)
            out.append(_BULLET.sub(lambda m: f"{m.group(1)}- ", segment))
    return "".join(out)


_SLACK_LINK = re.compile(r"\[([^\]\n]+)\]\(((?:https?|mailto):[^\s)|<>]+)\)")
_BOLD_MARK = "\x01"


def to_slack_mrkdwn(markdown: str) -> str:
    """One block of Markdown in Slack's mrkdwn. Slack reads `&`, `<` and `>` as markup everywhere, code
    included, so they are always escaped; `<url|text>` is the only markup made of them, and only links
    with a safe scheme become one. Code keeps its text (Slack shows no language, so the tag is dropped)."""
    lines = markdown.split("\n")
    fence = _FENCE.match(lines[0]) if lines else None
    if fence and len(lines) >= 2 and lines[-1].strip() == fence.group(1):
        return "```\n" + _slack_escape("\n".join(lines[1:-1])) + "\n```"
    out = []
    for i, segment in enumerate(_INLINE_CODE.split(markdown)):
        out.append(f"`{_slack_escape(segment)}`" if i % 2 else _slack_inline(segment))
    return "".join(out)


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_inline(text: str) -> str:
    links: list[str] = []

    def keep_link(m: re.Match[str]) -> str:
        label = _slack_styles(_slack_escape(m.group(1))).replace("|", "¦")
        links.append(f"<{_slack_escape(m.group(2))}|{label}>")
        return f"\x00{len(links) - 1}\x00"

    text = _SLACK_LINK.sub(keep_link, text)
    text = _slack_styles(_slack_escape(text))
    text = _HEADING.sub(lambda m: f"*{m.group(1)}*", text)
    text = _BULLET.sub(lambda m: f"{m.group(1)}• ", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: links[int(m.group(1))], text)


def _slack_styles(text: str) -> str:
    """`**b**`/`__b__` → `*b*`, `*i*`/`_i_` → `_i_`, `~~s~~` → `~s~`; bold is marked first and written last,
    so its `*` is never read again as italic."""
    text = _BOLD.sub(lambda m: f"{_BOLD_MARK}{m.group(1) or m.group(2)}{_BOLD_MARK}", text)
    text = _STRIKE.sub(lambda m: f"~{m.group(1)}~", text)
    text = _ITALIC.sub(lambda m: f"_{m.group(1) or m.group(2)}_", text)
    return text.replace(_BOLD_MARK, "*")


RENDERERS: dict[str, Callable[[str], str]] = {
    "markdown": lambda text: text,
    "plain": to_plain,
    "telegram-html": to_telegram_html,
    "dingtalk-markdown": to_dingtalk_markdown,
    "slack-mrkdwn": to_slack_mrkdwn,
}
