"""Take the console's screenshots for the docs: SVGs from Textual's own export, of a scripted session.

    python scripts/docs-screenshots.py [OUT_DIR]      # default: docs/images

The console runs under `App.run_test()` on a real in-process gateway, in a temporary CLAW_HOME, against the
scripted model server of the tests (tests/support/model_server.py): no model, key or network is needed, and
the same script gives the same pictures (up to the durations and times they show). It writes main.svg (a
reply after a tool call), tool-cards.svg (the cards expanded), approval.svg (exec asking), sessions.svg (the
session picker) and context.svg (`/context`).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SIZE = (110, 34)
CONFIG = '[agents.defaults.tools.exec]\nsecurity = "allowlist"\nask = "always"\n'
SOUL = "You are Pip, a careful assistant who keeps notes short.\n"
REPLY = """Your **SOUL.md** describes me as *Pip*:

- careful: I read before I write, and ask before running a command
- brief: notes stay short

```sh
claw workspace edit soul   # to change it
```
"""


async def _until(pilot: Any, condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise SystemExit(f"docs-screenshots: timed out waiting for {what}")
        await pilot.pause(0.05)
    return value


async def _send(pilot: Any, text: str) -> None:
    pilot.app.screen.query_one("#prompt").set_text(text)
    await pilot.press("enter")


async def _shoot(home: Path, server: Any, out: Path) -> list[Path]:
    from claw.client.local import LocalClient
    from claw.compose import build_gateway
    from claw.config import load_config
    from claw.gateway.gateway import Gateway
    from claw.paths import Paths
    from claw.tui.app import make_app
    from claw.tui.approvals import BrokerApprovals
    from claw.tui.screens.approval_screen import ApprovalScreen
    from claw.tui.session_picker import SessionPickerScreen
    from tests.support.model_server import text, tool_call

    paths = Paths.from_env()
    gateway = build_gateway(paths, load_config(paths), services=Gateway.capability_services)
    client = LocalClient(gateway, channel="tui")
    app = make_app(client, approvals=BrokerApprovals(gateway.approvals))
    written: list[Path] = []

    def save(name: str) -> None:
        path = out / name
        path.write_text(app.export_screenshot(title="claw chat"), encoding="utf-8")
        written.append(path)

    try:
        async with app.run_test(size=SIZE) as pilot:
            idle = lambda: not app.chat.runs  # noqa: E731
            server.script(tool_call("read", {"path": "SOUL.md"}), text(REPLY))
            await _send(pilot, "what does my SOUL.md say?")
            await _until(pilot, lambda: len(server.chat_requests) == 2 and idle(), "the first reply")
            await pilot.pause(0.3)
            save("main.svg")

            server.script(
                tool_call("exec", {"command": "ls -1"}),
                text("Just `SOUL.md` so far; the other bootstrap files (`AGENTS.md`, `MEMORY.md`, …) are optional."),
            )
            await _send(pilot, "what is in the workspace?")
            screen = await _until(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen, "the dialog")
            await pilot.pause(0.3)
            save("approval.svg")
            await pilot.press("o")
            await _until(pilot, lambda: len(server.chat_requests) == 4 and idle(), "the second reply")
            assert screen is not app.screen
            await pilot.press("ctrl+o")  # every card opens
            await pilot.pause(0.3)
            save("tool-cards.svg")
            await pilot.press("ctrl+o")

            await _send(pilot, "/context")
            await pilot.pause(1.0)
            save("context.svg")

            await _send(pilot, "/session work")  # a second session, so the picker has a choice
            await pilot.pause(0.5)
            server.script(text("Noted: the release is on Friday."))
            await _send(pilot, "remember: the release is on Friday")
            await _until(pilot, lambda: len(server.chat_requests) == 5 and idle(), "the reply in the second session")
            await _send(pilot, "/resume")
            await _until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
            await pilot.pause(0.5)
            save("sessions.svg")
            await pilot.press("escape")
    finally:
        await client.close()
    return written


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print("usage: python scripts/docs-screenshots.py [OUT_DIR]", file=sys.stderr)
        return 2
    out = Path(argv[0]) if argv else REPO / "docs" / "images"
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(REPO))
    from tests.support.model_server import ScriptedModelServer

    server = ScriptedModelServer(models=("demo-model",))
    with tempfile.TemporaryDirectory(prefix="claw-shots-") as tmp, server:
        home = Path(tmp)
        for name in [name for name in os.environ if name.startswith(("OPENAI_", "CLAW_"))]:
            del os.environ[name]
        os.environ.update(
            CLAW_HOME=str(home), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="demo", CLAW_MODEL="demo-model"
        )
        os.environ["NO_PROXY"] = "127.0.0.1,localhost"
        (home / "config.toml").write_text(CONFIG, encoding="utf-8")
        (home / "workspace").mkdir()
        (home / "workspace" / "SOUL.md").write_text(SOUL, encoding="utf-8")
        for path in asyncio.run(_shoot(home, server, out)):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
