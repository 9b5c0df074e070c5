"""Model failover: 429/5xx/connection errors move to the next model, visibly."""

from __future__ import annotations

import socket

from tests.gateway.conftest import collect, phases, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import error, text

CHAIN = (
    '[agents.defaults]\nmodel = { primary = "openai/primary-model", fallbacks = ["openai/backup-model"] }\n'
)


async def test_429_fails_over_to_the_fallback(claw_env: ClawEnv, make_client, monkeypatch) -> None:
    monkeypatch.delenv("CLAW_MODEL")
    write_config(claw_env.home, CHAIN)
    client = make_client()
    claw_env.server.script(
        error(429, "Rate limit reached", headers={"retry-after": "0"}), text("from backup")
    )
    events = await collect(client, (await client.run("hi")).run_id)

    failover = [e for e in events if e.stream == "lifecycle" and e.data["phase"] == "failover"]
    assert len(failover) == 1
    assert (
        failover[0].data["from"] == "openai/primary-model" and failover[0].data["to"] == "openai/backup-model"
    )
    assert "Rate limit" in failover[0].data["reason"]
    assert events[-1].data["text"] == "from backup"
    assert [r.body["model"] for r in claw_env.server.chat_requests] == ["primary-model", "backup-model"]

    # the primary is cooling down: the next turn goes to the backup first
    claw_env.server.script(text("still backup"))
    events = await collect(client, (await client.run("again")).run_id)
    assert claw_env.server.chat_requests[-1].body["model"] == "backup-model"
    assert "failover" not in phases(events)


async def test_every_model_failing_is_one_clear_error(claw_env: ClawEnv, make_client, monkeypatch) -> None:
    monkeypatch.delenv("CLAW_MODEL")
    write_config(claw_env.home, CHAIN)
    client = make_client()
    claw_env.server.script(error(503, "overloaded"), error(500, "boom"))
    events = await collect(client, (await client.run("hi")).run_id)
    assert phases(events) == ["accepted", "start", "failover", "error"]
    message = events[-1].data["message"]
    assert "every model failed" in message and "primary-model" in message and "backup-model" in message


def closed_port() -> int:
    """A loopback port nothing listens on: bound by the OS to be free, then closed again."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_unreachable_endpoint_fails_over(claw_env: ClawEnv, make_client, monkeypatch) -> None:
    monkeypatch.delenv("CLAW_MODEL")
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    write_config(
        claw_env.home,
        CHAIN.replace('"openai/primary-model"', '"dead/primary-model"')
        + f'[providers.dead]\nbaseUrl = "{dead}"\napiKey = "x"\n',
    )
    client = make_client()
    claw_env.server.script(text("alive"))
    events = await collect(client, (await client.run("hi")).run_id)
    failover = [e.data for e in events if e.stream == "lifecycle" and e.data["phase"] == "failover"]
    assert len(failover) == 1, failover
    assert failover[0]["from"] == "dead/primary-model" and failover[0]["to"] == "openai/backup-model"
    assert failover[0]["reason"].startswith(f"cannot reach provider dead at {dead} (")
    assert events[-1].data["text"] == "alive"
    assert [r.body["model"] for r in claw_env.server.chat_requests] == ["backup-model"]
