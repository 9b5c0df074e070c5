"""Names the console did not write (session keys carry a channel's peer and thread ids; previews carry what
anyone sent) are drawn with control and bidi characters escaped: they cannot display reversed or recolour."""

from __future__ import annotations

from claw.tui.format import short_key
from claw.tui.widgets.sessions.sessions_sidebar import SessionsSidebar

KEY = "agent:main:telegram:direct:\u202eevil.exe"


def test_a_session_key_from_a_channel_is_shown_escaped() -> None:
    assert short_key(KEY) == "telegram:direct:\\u202eevil.exe"
    assert short_key("agent:main:work") == "work"  # ordinary keys are untouched


def test_the_sidebar_escapes_keys_and_previews() -> None:
    sidebar = SessionsSidebar()
    sidebar.current = "agent:main:main"
    prompt = sidebar._prompt({"key": KEY, "lastMessagePreview": "hi \x1b[31mred", "updatedAt": None}).plain
    assert "\u202e" not in prompt and "\x1b" not in prompt
    assert "\\u202eevil.exe" in prompt and "\\x1b[31mred" in prompt
