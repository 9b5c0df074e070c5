"""The console's light and dark themes, registered with Textual's theme system.

`CLAW_THEME` (or `claw chat --theme`) takes `dark`, `light`, or any registered Textual
theme name; the command palette (F1 → "Theme") switches at run time; `/theme` toggles.
"""

from __future__ import annotations

from textual.theme import Theme

ACCENT = "#FF5A2D"

CLAW_DARK = Theme(
    name="claw-dark",
    primary=ACCENT,
    secondary="#3A7BD5",
    accent="#FFB347",
    warning="#FFB347",
    error="#E5484D",
    success="#46A758",
    foreground="#E6E6E6",
    background="#151515",
    surface="#1E1E1E",
    panel="#262626",
    dark=True,
)

CLAW_LIGHT = Theme(
    name="claw-light",
    primary="#D9441A",
    secondary="#1F5FAD",
    accent="#B35C00",
    warning="#B35C00",
    error="#C62828",
    success="#2E7D32",
    foreground="#1A1A1A",
    background="#F7F5F2",
    surface="#EDEAE6",
    panel="#E2DED8",
    dark=False,
)

THEMES = (CLAW_DARK, CLAW_LIGHT)
ALIASES = {"dark": CLAW_DARK.name, "light": CLAW_LIGHT.name}


def theme_name(requested: str | None) -> str:
    """The theme to start with: an alias, a theme name, or claw's dark theme."""
    if not requested:
        return CLAW_DARK.name
    return ALIASES.get(requested.lower(), requested)


def check_theme(requested: str | None) -> None:
    """`claw chat --theme` / `CLAW_THEME`: a name no theme has is a usage error listing the themes."""
    if not requested:
        return
    from textual.theme import BUILTIN_THEMES

    from claw.errors import UsageError

    known = [*ALIASES, *(t.name for t in THEMES), *sorted(BUILTIN_THEMES)]
    if theme_name(requested) not in known:
        raise UsageError(f"unknown theme {requested!r} (themes: {', '.join(known)})")


def opposite(dark: bool) -> str:
    """The theme `/theme` switches to from the current one."""
    return CLAW_LIGHT.name if dark else CLAW_DARK.name
