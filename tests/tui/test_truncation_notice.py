"""The console shows a server that cut the prompt as one warning notice, the first time only."""

from __future__ import annotations

from typing import Any

import pytest

from claw.tui.widgets.conversation.notice import Notice
from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text
from tests.tui.conftest import SIZE, type_and_send, wait_for

REF = "llamacpp/test-model"
LONG = "Please keep all of this in mind. " * 300


async def test_the_console_says_it_once(claw_env: ClawEnv, console: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    (claw_env.home / "config.toml").write_text(f'[providers.llamacpp]\nbaseUrl = "{claw_env.server.base_url}"\n')
    monkeypatch.setenv("CLAW_MODEL", REF)  # a local server: only those cut prompts silently
    claw_env.server.default = lambda _request: text("ok", usage=Usage(512, 1))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == REF, what="connected")

        def warnings() -> list[str]:
            return [n.text for n in app.chat.conversation.query(Notice) if n.kind == "warning"]

        await type_and_send(pilot, LONG)
        await wait_for(pilot, warnings, what="the truncation notice")
        await type_and_send(pilot, LONG)
        await wait_for(pilot, lambda: len(claw_env.server.chat_requests) == 2, what="the second turn")
        await wait_for(pilot, lambda: app.chat.status.state == "idle", what="the second turn's end")
        (notice,) = warnings()
        assert notice.startswith(f"⚠ {REF}'s server counted 512 prompt tokens where claw sent ~")
