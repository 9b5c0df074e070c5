"""The browser pages (issue 39): claw's web chat's first paint and time to a connected session in headless
Chromium, and the gateway's memory with 10 pages open. Run by hand from the repo root:

    python -m bench.web_pages [--runs 20] [--control-ui]

Starts `claw gateway run --port 0` on a temporary CLAW_HOME with the scripted model server and Debian's
chromium (scripts/install-chromium.sh) through Playwright. Each run is a fresh browser context (no cache, no
storage: a first visit) loading `/chat/#token=…`; it reads the page's own Performance entries: `first-paint`,
and the marks the page sets when `hello-ok` arrives (`claw-connected`) and when the session's history is shown
(`claw-session-open`), all from navigation start. Memory is the gateway process's RSS (/proc) before any page,
then with 10 pages connected at once. `--control-ui` also times OpenClaw's Control UI (from the install
scripts/install-openclaw.sh makes) to its chat composer, for comparison.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import Target, finish, machine_line, median, spread
from tests.support.fixtures import MODEL
from tests.support.model_server import ScriptedModelServer, text
from tests.web.conftest import CHROMIUM, TOKEN, start_rig, stop_rig

PAGES = 10
CONTROL_UI = Path.home() / ".cache/claw-interop/app/node_modules/openclaw/dist/control-ui"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def entry(page: Any, name: str) -> float:
    """The start time (s) of the Performance entry `name`, waiting for it to exist."""
    page.wait_for_function(f"() => performance.getEntriesByName({name!r}).length > 0", timeout=30_000)
    return page.evaluate(f"performance.getEntriesByName({name!r})[0].startTime") / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--control-ui", action="store_true")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(machine_line())
    config = f'\n[gateway.controlUi]\nroot = "{CONTROL_UI}"\n' if args.control_ui else ""
    with (
        ScriptedModelServer(models=(MODEL,), default=lambda _r: text("ok")) as model,
        tempfile.TemporaryDirectory(prefix="claw-bench-web-") as tmp,
    ):
        rig = start_rig(Path(tmp), model, config)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
                paint, connected, opened, cui = [], [], [], []
                for _ in range(args.runs):
                    context = browser.new_context()
                    page = context.new_page()
                    page.goto(f"{rig.base}/chat/#token={TOKEN}")
                    paint.append(entry(page, "first-paint"))
                    connected.append(entry(page, "claw-connected"))
                    opened.append(entry(page, "claw-session-open"))
                    context.close()
                for _ in range(args.runs if args.control_ui else 0):
                    context = browser.new_context()
                    page = context.new_page()
                    started = time.perf_counter()
                    page.goto(f"{rig.base}/#token={TOKEN}")
                    page.locator("textarea[aria-label='Chat composer']:visible").first.wait_for(timeout=60_000)
                    cui.append(time.perf_counter() - started)
                    context.close()
                pid = rig.gateway.proc.pid
                time.sleep(1)
                before = rss_mb(pid)
                contexts = [browser.new_context() for _ in range(PAGES)]
                for context in contexts:
                    page = context.new_page()
                    page.goto(f"{rig.base}/chat/#token={TOKEN}")
                    entry(page, "claw-session-open")
                time.sleep(2)
                during = rss_mb(pid)
                for context in contexts:
                    context.close()
                browser.close()
        finally:
            stop_rig(rig)
    print(spread("web chat: first paint", paint))
    print(spread("web chat: connected (hello-ok)", connected))
    print(spread("web chat: session shown (history)", opened))
    if cui:
        print(spread("Control UI: chat composer shown", cui))
    print(f"gateway RSS: {before:.1f} MB with no page, {during:.1f} MB with {PAGES} pages connected "
          f"(+{during - before:.1f} MB, {(during - before) / PAGES * 1024:.0f} KB a page)")  # fmt: skip
    return finish(
        [
            Target("web chat first paint p50", median(paint) * 1000, 300, "ms"),
            Target("web chat connected p50", median(connected) * 1000, 500, "ms"),
            Target(f"gateway RSS growth with {PAGES} pages", during - before, 20, "MB"),
        ]
    )


if __name__ == "__main__":
    raise SystemExit(main())
