"""claw's web chat (`/chat/`) in a real headless Chromium against a real `claw gateway run` with the scripted
model: connecting with the token, a streamed Markdown reply, a tool row, an exec approval, abort, switching
sessions and `/new`; plus the page's headers and who gets it at all (plain HTTP, no browser needed)."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixtures import MODEL
from tests.support.model_server import ScriptedModelServer, slow, text, tool_call
from tests.support.processes import run_claw, wait_until
from tests.web.conftest import TOKEN, WebRig, start_rig, stop_rig

pytestmark = pytest.mark.timeout(180)

REPLY = (
    "Here is **bold** text, `inline code` and <script>window.pwned = 1</script> as text, "
    "[a link](https://example.com/docs) and [a trap](javascript:window.pwned=2).\n\n- one\n- two"
)


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebRig]:
    with ScriptedModelServer(models=(MODEL,)) as model:
        started = start_rig(tmp_path_factory.mktemp("web-chat"), model)
        try:
            yield started
        finally:
            stop_rig(started)


@pytest.fixture
def page(browser: Any, rig: WebRig) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    opened = context.new_page()
    opened.goto(f"{rig.base}/chat/#token={TOKEN}")
    opened.wait_for_selector("body[data-connected=true]", timeout=20_000)
    opened.wait_for_selector("body[data-session]")
    yield opened
    context.close()


def _get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None


def _send(page: Any, message: str) -> None:
    page.fill("#input", message)
    page.press("#input", "Enter")


def test_the_page_has_strict_headers_and_needs_the_token_off_loopback(rig: WebRig) -> None:
    status, headers, body = _get(f"{rig.base}/chat/")
    assert status == 200 and b'<script type="module" src="chat.js">' in body
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp and "unsafe" not in csp
    assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
    assert _get(f"{rig.base}/chat/chat.js")[1]["Content-Type"].startswith("text/javascript")
    assert _get(f"{rig.base}/chat/../config.toml")[0] == 404
    assert _get(f"{rig.base}/chat/secrets.txt")[0] == 404
    # A browser opening the gateway's address is led to the chat; a program still learns where things are.
    status, headers, _ = _get(f"{rig.base}/", Accept="text/html")
    assert status == 302 and headers["Location"] == "/chat/"
    assert _get(f"{rig.base}/")[0] == 426
    # Through a proxy (another host, as far as the gateway can tell) nothing is served without the token.
    proxied = {"X-Forwarded-For": "203.0.113.7"}
    status, headers, body = _get(f"{rig.base}/chat/", **proxied)
    assert status == 401 and headers["WWW-Authenticate"].startswith("Basic") and b"<html" not in body
    wrong = "Basic " + base64.b64encode(b"me:not-the-token").decode()
    assert _get(f"{rig.base}/chat/chat.js", Authorization=wrong, **proxied)[0] == 401
    right = "Basic " + base64.b64encode(f"me:{TOKEN}".encode()).decode()
    assert _get(f"{rig.base}/chat/", Authorization=right, **proxied)[0] == 200
    # The page's own origin on loopback passes the Origin check like a listed one; another site's page, a page on
    # another port, and this port under another name (DNS rebinding) do not.
    port = rig.gateway.info["port"]
    assert _get(f"{rig.base}/chat/", Origin=f"http://127.0.0.1:{port}")[0] == 200
    assert _get(f"{rig.base}/chat/", Origin=f"http://localhost:{port}")[0] == 200
    for foreign in ("https://evil.example", f"http://127.0.0.1:{port + 1}", f"http://rebound.example:{port}"):
        assert _get(f"{rig.base}/chat/", Origin=foreign)[0] == 403, foreign


def test_connect_and_a_streamed_markdown_reply(page: Any, rig: WebRig) -> None:
    assert "token" not in page.url  # taken from the fragment, then removed from the address
    devices = json.loads((rig.home / "devices" / "devices.json").read_text())["devices"].values()
    assert any(d["clientId"] == "claw-web" and d["status"] == "paired" for d in devices)  # its own WebCrypto key
    rig.model.script(slow(REPLY, delay_per_chunk=0.08, chunk=6))
    _send(page, "Show me some markdown")
    page.wait_for_selector(".msg.user >> text=Show me some markdown")
    partial = page.wait_for_function(
        "() => { const m = document.querySelector('.msg.assistant'); const t = m ? m.textContent : '';"
        " return t.length > 0 && !t.includes('two') ? t : null; }",
        timeout=20_000,
    ).json_value()
    assert REPLY.replace("**", "").replace("`", "").startswith(partial[:5])  # some of it, before the rest
    page.wait_for_selector(".msg.assistant.done", timeout=30_000)
    reply = page.locator(".msg.assistant").last
    assert reply.locator("strong").inner_text() == "bold"
    assert reply.locator("code").inner_text() == "inline code"
    assert reply.locator("li").all_inner_texts() == ["one", "two"]
    assert "<script>window.pwned = 1</script>" in reply.inner_text()  # shown, not run
    assert reply.locator("script").count() == 0 and page.evaluate("window.pwned") is None
    links = reply.locator("a")
    assert links.count() == 1 and links.get_attribute("href") == "https://example.com/docs"
    assert links.get_attribute("rel") == "noopener noreferrer nofollow"
    assert "[a trap](javascript:window.pwned=2)" in reply.inner_text()  # left as text, never a link
    page.screenshot(path=rig.shots / "web-chat.png")


def test_a_tool_call_is_a_row_that_opens(page: Any, rig: WebRig) -> None:
    rig.model.script(tool_call("exec", {"command": "echo tool-output-42"}), text("The tool ran."))
    _send(page, "run echo")
    page.wait_for_selector("text=The tool ran.", timeout=30_000)
    row = page.locator("details.tool").last
    assert "exec" in row.locator("summary").inner_text()
    result = row.locator("pre.result")
    assert "tool-output-42" in result.text_content() and not result.is_visible()  # collapsed
    row.locator("summary").click()
    assert result.is_visible() and "tool-output-42" in result.inner_text()


def test_an_exec_approval_answered_in_the_page(page: Any, rig: WebRig) -> None:
    made = rig.home / "workspace" / "approved-in-browser"
    rig.model.script(tool_call("exec", {"command": f"touch {made.name}"}), text("Made the file."))
    _send(page, "make a file")
    card = page.wait_for_selector(".approval", timeout=30_000)
    assert f"touch {made.name}" in card.inner_text()
    page.screenshot(path=rig.shots / "web-chat-approval.png")
    page.click(".approval button[data-decision=allow-once]")
    page.wait_for_selector("text=Made the file.", timeout=30_000)
    assert made.exists() and page.locator(".approval").count() == 0


def test_abort_stops_a_slow_reply(page: Any, rig: WebRig) -> None:
    long_reply = " ".join(f"word{n}" for n in range(400))
    rig.model.script(slow(long_reply, delay_per_chunk=0.05, chunk=8))
    _send(page, "talk for a long time")
    page.wait_for_selector("#abort:not([hidden])", timeout=20_000)
    page.wait_for_function("() => (document.querySelector('.msg.assistant:last-of-type') || {}).textContent")
    page.click("#abort")
    page.wait_for_selector(".msg.note >> text=stopped", timeout=20_000)
    assert page.locator("#abort").is_hidden()
    assert "word399" not in page.locator(".msg.assistant").last.inner_text()


def test_switching_sessions_and_new(page: Any, rig: WebRig) -> None:
    first = _new_session(page)
    rig.model.script(text("Reply in the first session."))
    _send(page, "hello, first session")
    page.wait_for_selector(".msg.assistant.done >> text=Reply in the first session.", timeout=30_000)
    second = _new_session(page)
    assert page.locator(".msg").count() == 0
    rig.model.script(text("Reply in the second session."))
    _send(page, "hello, second session")
    page.wait_for_selector(".msg.assistant.done >> text=Reply in the second session.", timeout=30_000)
    # Back to the first session (listed in the sidebar since its first message): its own history only.
    page.click(f"#sessions li[data-key='{first}']")
    page.wait_for_function(f"() => document.body.dataset.session === {first!r}")
    page.wait_for_selector("#log >> text=Reply in the first session.")
    assert page.locator("#log >> text=Reply in the second session.").count() == 0
    # And to the second again.
    page.click(f"#sessions li[data-key='{second}']")
    page.wait_for_selector("#log >> text=Reply in the second session.")
    assert page.locator("#log >> text=Reply in the first session.").count() == 0
    # `/new` starts the session over: its transcript is gone from the page, the command's answer shown.
    _send(page, "/new")
    page.wait_for_selector(".msg.note", timeout=20_000)
    assert page.locator("#log >> text=Reply in the second session.").count() == 0


def _new_session(page: Any) -> str:
    """Start a session with the sidebar's + and return its key."""
    before = page.evaluate("document.body.dataset.session")
    page.click("#new-session")
    page.wait_for_function(f"() => document.body.dataset.session !== {before!r}")
    return str(page.evaluate("document.body.dataset.session"))


def test_phone_width_dark(browser: Any, rig: WebRig) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark", is_mobile=True)
    phone = context.new_page()
    try:
        phone.goto(f"{rig.base}/chat/#token={TOKEN}")
        phone.wait_for_selector("body[data-connected=true]", timeout=20_000)
        assert phone.locator("#menu").is_visible() and not phone.locator("#sessions").is_visible()
        background = phone.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(17, 18, 20)"  # the dark palette, from prefers-color-scheme
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
        phone.wait_for_selector("body[data-session]")
        rig.model.script(text("A reply, **on a phone**."))
        _send(phone, "hello from a phone")
        phone.wait_for_selector(".msg.assistant.done", timeout=30_000)
        phone.screenshot(path=rig.shots / "web-chat-phone.png")
        phone.click("#menu")
        phone.wait_for_selector("#sessions li", state="visible")
    finally:
        context.close()


def test_a_page_under_another_name_cannot_connect_unless_listed(browser: Any, rig: WebRig) -> None:
    """The same page reached as `http://phone.claw.test:<port>/` (a name pointing here, as a rebinding attacker's
    would): its script is a module, fetched with that Origin, which is not in `gateway.allowedOrigins`, so the
    gateway refuses it and the page never runs; it says what to do instead."""
    context = browser.new_context()
    other = context.new_page()
    try:
        other.goto(f"http://phone.claw.test:{rig.gateway.info['port']}/chat/#token={TOKEN}")
        refused = "refused GET /chat/chat.js from 127.0.0.1: origin not allowed"
        wait_until(lambda: refused in rig.gateway.stderr, timeout=20)
        other.wait_for_load_state("load")
        assert "gateway.allowedOrigins" in other.locator("#boot").inner_text()
        assert other.evaluate("document.body.dataset.connected") is None
    finally:
        context.close()


def test_a_browser_on_another_host_pairs_its_device(browser: Any, rig: WebRig) -> None:
    """Through a proxy (so another host, as far as the gateway can tell): the page needs the token to load at
    all, and its device waits for `claw devices approve`, after which the page comes in by itself."""
    basic = "Basic " + base64.b64encode(f"phone:{TOKEN}".encode()).decode()
    context = browser.new_context(extra_http_headers={"X-Forwarded-For": "203.0.113.9", "Authorization": basic})
    phone = context.new_page()
    try:
        phone.goto(f"{rig.base}/chat/#token={TOKEN}")
        phone.wait_for_selector("#login-error >> text=pairing required", timeout=20_000)
        listed = run_claw(rig.env, "devices", "ls", "--json")
        pending = [d for d in json.loads(listed.stdout) if d["status"] == "pending"]
        assert len(pending) == 1 and pending[0]["clientId"] == "claw-web", listed.stdout
        assert run_claw(rig.env, "devices", "approve", pending[0]["deviceId"][:12]).returncode == 0
        phone.wait_for_selector("body[data-connected=true]", timeout=20_000)
    finally:
        context.close()


def test_the_token_reached_no_log(rig: WebRig) -> None:
    assert TOKEN not in rig.gateway.stderr
    assert all(TOKEN not in p.read_text(errors="replace") for p in Path(rig.home).rglob("*.log"))
