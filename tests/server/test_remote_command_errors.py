"""A slash command's error crosses the WebSocket: `claw agent --url … -m /bogus` exits as it does in-process."""

from __future__ import annotations

import json

from tests.server.test_gateway_cli import GATEWAY_TOKEN, GatewayProc, claw, gateway  # noqa: F401 (a fixture)
from tests.support.fixtures import ClawEnv


def test_command_errors_through_a_running_gateway(claw_env: ClawEnv, gateway: GatewayProc) -> None:  # noqa: F811
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    url = str(gateway.info["url"])
    bogus = claw(env, "agent", "--url", url, "-m", "/stauts")
    assert bogus.returncode == 2, bogus.stderr
    assert bogus.stderr == "claw: unknown command /stauts (did you mean /status?) — /help lists them\n"
    assert bogus.stdout == ""
    queue = claw(env, "agent", "--url", url, "-m", "/queue sideways", "--json")
    assert queue.returncode == 2, queue.stderr
    answer = json.loads(queue.stdout)
    assert answer["error"] == "usage" and "cannot use 'sideways'" in answer["reply"]
    status = claw(env, "agent", "--url", url, "-m", "/status")
    assert status.returncode == 0 and "Session agent:main:main" in status.stdout
    assert claw_env.server.requests == []
