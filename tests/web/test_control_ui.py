"""OpenClaw's own Control UI (the `dist/control-ui/` of its npm package, 2026.9.6, installed by
scripts/install-openclaw.sh) served by claw (`gateway.controlUi.root`) and driving it, in a real headless
Chromium: connecting, a streamed reply, the session sidebar and an exec approval. With `CI` set a missing
install fails these tests instead of skipping them."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from claw.client.remote import RemoteClient
from tests.interop.openclaw_install import install_openclaw
from tests.support.fixtures import MODEL
from tests.support.model_server import ScriptedModelServer, slow, text, tool_call
from tests.web.conftest import TOKEN, WebRig, start_rig, stop_rig

pytestmark = pytest.mark.timeout(300)

SIDE = "agent:main:side-one"


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebRig]:
    root = install_openclaw().openclaw.parent / "dist" / "control-ui"
    assert (root / "index.html").is_file(), f"no Control UI build at {root}"
    with ScriptedModelServer(models=(MODEL,)) as model:
        started = start_rig(tmp_path_factory.mktemp("control-ui"), model, f'\n[gateway.controlUi]\nroot = "{root}"\n')
        try:
            model.script(text("Reply in the side session."))
            # In a thread: where Playwright's sync API already runs in this one, asyncio.run() may not.
            with ThreadPoolExecutor(1) as pool:
                pool.submit(asyncio.run, _run_in(started, SIDE, "hello from the side")).result(timeout=120)
            yield started
        finally:
            stop_rig(started)


async def _run_in(rig: WebRig, session_key: str, message: str) -> None:
    client = await RemoteClient.connect(f"ws://127.0.0.1:{rig.gateway.info['port']}", TOKEN)
    try:
        handle = await client.run(message, session_key=session_key)
        async for _ in client.events(handle.run_id):
            pass
    finally:
        await client.close()


@pytest.fixture(scope="module")
def page(browser: Any, rig: WebRig) -> Iterator[Any]:
    """One page for the module: the app connects once, as a user's tab would."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    opened = context.new_page()
    opened.goto(f"{rig.base}/#token={TOKEN}")
    opened.locator(COMPOSER).wait_for(timeout=60_000)
    yield opened
    context.close()


COMPOSER = "textarea[aria-label='Chat composer'][aria-describedby*='agent%3Amain%3Amain%22']:visible"
"""The main session's composer (the app keeps every chat pane it opened; its ids name their sessions)."""


def _send(page: Any, message: str) -> None:
    box = page.locator(COMPOSER)
    box.fill(message)
    box.press("Enter")


def test_the_index_allows_its_inline_scripts_by_hash_only(rig: WebRig) -> None:
    with urllib.request.urlopen(f"{rig.base}/", timeout=10) as response:
        csp = response.headers["Content-Security-Policy"]
        body = response.read()
    assert b"OpenClaw Control" in body and b'data-openclaw-control-ui-base-path=""' in body
    scripts = next(part for part in csp.split("; ") if part.startswith("script-src"))
    assert "'sha256-" in scripts and "unsafe" not in scripts
    assert "frame-ancestors 'none'" in csp
    with urllib.request.urlopen(f"{rig.base}/control-ui-config.json", timeout=10) as response:
        assert response.read().startswith(b'{"basePath": ""')


def test_connects_and_streams_a_reply(page: Any, rig: WebRig) -> None:
    words = [f"streamed{n}" for n in range(30)]
    rig.model.script(slow(" ".join(words), delay_per_chunk=0.08, chunk=10))
    _send(page, "stream to the control ui")
    seen_partial = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if page.get_by_text(words[-1]).count():
            break
        seen_partial |= page.get_by_text(words[0]).count() > 0
        time.sleep(0.05)
    assert page.get_by_text(words[-1]).count(), "the reply never arrived"
    assert seen_partial, "the reply arrived whole, not streamed"
    page.screenshot(path=rig.shots / "control-ui.png")


def test_the_session_sidebar_lists_and_opens_a_session(page: Any, rig: WebRig) -> None:
    entry = page.get_by_text("side-one", exact=True)
    entry.wait_for(timeout=30_000)
    entry.click()
    chat = page.get_by_role("region", name="Chat").filter(visible=True)
    chat.get_by_text("Reply in the side session.").wait_for(timeout=30_000)
    chat.get_by_text("hello from the side").first.wait_for()
    page.get_by_role("link", name="Home").click()
    page.wait_for_selector(COMPOSER)


def test_an_exec_approval_answered_in_the_control_ui(page: Any, rig: WebRig) -> None:
    made = Path(rig.home) / "workspace" / "from-control-ui"
    rig.model.script(tool_call("exec", {"command": f"touch {made.name}"}), text("Touched it."))
    _send(page, "make a file please")
    page.get_by_text("Exec approval needed").wait_for(timeout=30_000)
    page.screenshot(path=rig.shots / "control-ui-approval.png")
    page.get_by_role("button", name="Allow once").click()
    page.get_by_role("region", name="Chat").filter(visible=True).get_by_text("Touched it.").wait_for(timeout=30_000)
    assert made.exists()
