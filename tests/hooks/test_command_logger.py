"""The bundled command-logger hook: one JSON line per command event in logs/commands.log, mode 0600."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable

from claw.gateway.gateway import Gateway
from tests.hooks.conftest import local, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text


async def test_each_command_event_is_one_json_line(claw_env: ClawEnv, make_gateway: Callable[[], Gateway]) -> None:
    write_config(claw_env.home, "[hooks.entries.command-logger]\nenabled = true\n")
    claw_env.server.script(text("fine"))
    gateway = make_gateway()
    client = local(gateway)
    handle = await client.run("not a command")
    assert handle.run_id is not None
    [e async for e in client.events(handle.run_id)]
    for command in ("/new", "/reset", "/stop", "/status"):
        await client.run(command, session_key="work")
    await gateway.close()

    log = claw_env.home / "logs" / "commands.log"
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(line["event"], line["action"]) for line in lines] == [
        ("command:new", "new"),
        ("command:reset", "reset"),
        ("command:stop", "stop"),
    ]
    assert all(
        line["sessionKey"] == "agent:main:work" and line["channel"] == "cli" and line["senderId"] == "local"
        for line in lines
    )
    assert all(line["timestamp"].endswith("Z") for line in lines)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700


async def test_nothing_is_logged_until_enabled(claw_env: ClawEnv, make_gateway: Callable[[], Gateway]) -> None:
    gateway = make_gateway()
    await local(gateway).run("/new")
    await gateway.close()
    assert not (claw_env.home / "logs" / "commands.log").exists()
