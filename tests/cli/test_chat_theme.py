"""`claw chat --theme` (or `CLAW_THEME`) with a name no theme has: a one-line error listing the themes, exit 2,
before anything opens — not a silent fall back to the default."""

from __future__ import annotations

import pytest

from claw.errors import UsageError
from claw.tui.themes import check_theme
from tests.cli.conftest import assert_one_line_error


def test_unknown_theme_is_a_usage_error_listing_the_themes(run_claw) -> None:
    for done in (
        run_claw("chat", "--theme", "nosuchtheme", expect=2),
        run_claw("chat", env={"CLAW_THEME": "nosuchtheme"}, expect=2),
    ):
        assert_one_line_error(done, "unknown theme 'nosuchtheme' (themes: dark, light, claw-dark, claw-light")
        assert "nord" in done.stderr


@pytest.mark.parametrize("name", [None, "", "dark", "LIGHT", "claw-light", "nord", "textual-dark"])
def test_every_theme_the_console_knows_passes(name: str | None) -> None:
    check_theme(name)


def test_a_typo_is_refused() -> None:
    with pytest.raises(UsageError, match="unknown theme 'drak'"):
        check_theme("drak")
