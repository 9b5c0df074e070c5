"""A bare JSON object that is the whole reply and names an offered tool: `{"name": …, "arguments": …}`.

Only a tool that was offered makes it a call: any other JSON object is the reply itself."""

from __future__ import annotations

import json

from claw.providers.text_tools.call import Offered, TextCall, from_object


def parse(markup: str, offered: Offered) -> tuple[list[TextCall], str] | None:
    text = markup.strip()
    if text.startswith("```"):  # a fenced block: ```json\n{...}\n```
        text = text.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(text)
    except ValueError:
        return None
    items = value if isinstance(value, list) else [value]
    names = [item.get("name") for item in items if isinstance(item, dict)]
    if not items or len(names) != len(items) or not all(name in offered for name in names):
        return None
    return [from_object(item, offered) for item in items], ""
