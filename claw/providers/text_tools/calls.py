"""Which parser reads held markup: by the marker it starts with (the stream filter held it from there)."""

from __future__ import annotations

from claw.providers.text_tools import bare_json, hermes, mistral, pythonic, qwen_xml
from claw.providers.text_tools.call import Offered, TextCall

FORMATS = ("auto", "native", "hermes", "qwen3_coder", "mistral", "llama", "pythonic", "json")
"""`toolCallFormat` values: auto-detect, native `tool_calls` only, or one text format."""

MARKERS: dict[str, tuple[str, ...]] = {
    "hermes": (hermes.OPEN,),
    "qwen3_coder": (hermes.OPEN, qwen_xml.OPEN),
    "mistral": (mistral.OPEN,),
    "llama": (pythonic.PYTHON_TAG,),
    "pythonic": (),
    "json": (),
    "native": (),
}
MARKERS["auto"] = tuple(dict.fromkeys(m for ms in MARKERS.values() for m in ms))
LEADS: dict[str, str] = {"auto": "[{", "llama": "[{", "pythonic": "[", "json": "{"}
"""Characters that, first in a reply, may open a call that has no marker (pythonic, bare JSON)."""


def parse_markup(markup: str, offered: Offered, fmt: str = "auto") -> tuple[list[TextCall], str] | None:
    """The calls `markup` holds and the text left around them; None when it holds no call (it is text).

    `fmt` names the one format to read (`toolCallFormat`); the marker-less ones are told apart only by
    it, the others by the marker the stream held the markup from."""
    head = markup.lstrip()
    if fmt == "pythonic":
        return pythonic.parse(head, offered)
    if fmt == "json":
        return bare_json.parse(head, offered)
    if head.startswith(hermes.OPEN):
        return hermes.parse(head, offered)
    if head.startswith(qwen_xml.OPEN):
        return qwen_xml.parse(head, offered)
    if head.startswith(mistral.OPEN):
        return mistral.parse(head, offered)
    if head.startswith(pythonic.PYTHON_TAG):
        return pythonic.parse_tagged(head, offered)
    if head.startswith("["):
        return pythonic.parse(head, offered) or bare_json.parse(head, offered)
    if head.startswith("{"):
        return bare_json.parse(head, offered)
    return None


def detected_format(markup: str) -> str:
    """The format name of held markup, for logs and `claw doctor model`."""
    head = markup.lstrip()
    for name in ("hermes", "mistral", "llama"):
        if head.startswith(MARKERS[name][0]):
            return "qwen3_coder" if name == "hermes" and qwen_xml.OPEN in head else name
    if head.startswith(qwen_xml.OPEN):
        return "qwen3_coder"
    return "pythonic" if head.startswith("[") else "json"
