"""`claw --help` stays fast: no command's help, however nested, imports textual, openai, the HTTP stacks or asyncio."""

from __future__ import annotations

import subprocess
import sys

from tests.support.cli_help import help_pages, listed_commands

HEAVY = ("textual", "openai", "aiohttp", "httpx", "asyncio")


def test_help_of_every_command_imports_neither_textual_nor_openai() -> None:
    pages = help_pages(HEAVY)
    by_path = {page.path: page for page in pages}
    assert pages[0].path == () and ("gateway", "run") in by_path  # the root, and nested commands too
    for page in pages:
        assert page.text.startswith(page.usage), (page.path, page.text[:300])
        for name in listed_commands(page.text):  # every command a group's help lists was probed ...
            assert (*page.path, name) in by_path, (page.path, name)
        if page.path and not page.hidden:  # ... and every probed command is listed in its group's help
            assert page.path[-1] in listed_commands(by_path[page.path[:-1]].text), page.path
    assert [(page.path, page.heavy) for page in pages if page.heavy] == []


def test_gateway_and_runtime_never_import_textual() -> None:
    probe = "import sys, claw.compose, claw.api.core, claw.agent.runner; print('textual' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_skills_prompt_imports_no_url_or_mail_stack() -> None:
    # `xml.sax.saxutils` (for one escape) pulled in urllib.request, http.client, email and ssl.
    stacks = ("xml.sax", "urllib.request", "http.client", "email", "ssl")
    probe = f"import sys, claw.skills.prompt; print([m for m in {stacks!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
