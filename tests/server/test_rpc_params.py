"""RPC parameters are checked at the wire (claw/api/params.py): each way a call can be wrong gets
the same one line, a `UsageError` naming the parameter and what it should be, in-process (`LocalClient`)
and over WebSocket (`RemoteClient` against a started gateway server)."""

from __future__ import annotations

import pytest

from claw.api.method import RpcMethod
from claw.api.params import CHANNEL_KEY
from claw.client.local import LocalClient
from claw.client.protocol import GatewayClient
from claw.client.remote import RemoteClient
from claw.errors import NotFoundError, UsageError
from claw.protocol.scopes import OPERATOR_SCOPES, QUESTIONS
from tests.server.conftest import TOKEN, Served

_KEY_CHARS = "use lowercase letters, digits, ':' and _ . @ + = -"

WRONG_CALLS: list[tuple[str, str, dict[str, object], str]] = [
    # (what, method, params, the whole error line)
    ("missing", "agent", {}, "missing parameter 'message' (a non-empty string)"),
    ("not a string", "agent", {"message": 5}, "invalid parameter 'message' (a non-empty string), got 5"),
    ("blank string", "agent.follow", {"runId": "   "}, "invalid parameter 'runId' (a non-empty string), got \"   \""),
    ("null for a required string", "workspace.read", {"name": None},
     "invalid parameter 'name' (a workspace file name, e.g. USER.md or user), got null"),
    ("a string for a number", "chat.history", {"limit": "many"},
     "invalid parameter 'limit' (a number; 0 for the whole history), got \"many\""),
    ("a boolean for a number", "agent.wait", {"runId": "r1", "timeoutMs": True},
     "invalid parameter 'timeoutMs' (milliseconds, a number >= 0), got true"),
    ("negative milliseconds", "subagents.wait", {"parentRunId": "r1", "timeoutMs": -1},
     "invalid parameter 'timeoutMs' (milliseconds, a number >= 0), got -1"),
    ("out of range", "automations.runs", {"id": "daily", "limit": 0},
     "invalid parameter 'limit' (a whole number from 1 to 2000), got 0"),
    ("a fraction for a whole number", "outbox.list", {"limit": 2.5},
     "invalid parameter 'limit' (a whole number >= 1), got 2.5"),
    ("a bad list item", "subagents.wait", {"parentRunId": "r1", "known": ["run-a", 7]},
     "invalid parameter 'known' (a list of run ids), got [\"run-a\", 7]"),
    ("not a boolean", "memory.search", {"query": "q", "explain": "yes"},
     "invalid parameter 'explain' (true or false), got \"yes\""),
    ("not an id", "outbox.retry", {"id": "twelve"},
     "invalid parameter 'id' (an entry id: a number, as `claw outbox ls` shows it), got \"twelve\""),
    ("the second of two", "pairing.approve", {"channel": "telegram"},
     "missing parameter 'code' (a pairing code, as in `claw pairing approve telegram ABCD2345`)"),
    ("bad agent id", "sessions.list", {"agentId": "Ops Team"},
     "invalid parameter 'agentId': 'Ops Team' is not an agent id (1-64 of a-z, 0-9, '_' or '-')"),
    ("session key with a path", "sessions.get", {"sessionKey": "../../etc/passwd"},
     f"invalid parameter 'sessionKey': 'agent:main:../../etc/passwd' contains '/'; {_KEY_CHARS}"),
    ("session key under an agent", "chat.history", {"agentId": "ops", "sessionKey": "a b"},
     f"invalid parameter 'sessionKey': 'agent:ops:a b' contains ' '; {_KEY_CHARS}"),
    ("session key of the wrong shape", "sessions.reset", {"sessionKey": "agent::"},
     "invalid parameter 'sessionKey': 'agent::' is not a key of the form agent:<agentId>:<rest>, e.g. agent:main:main"),
    ("session key too long", "agent", {"message": "hi", "sessionKey": "k" * 5000},
     "invalid parameter 'sessionKey': 'agent:main:kkkkkkkkkkkkkkkkkkkkkkkkkkkkk'… is 5,011 characters long; "
     "the limit is 256"),
    ("blank model ref", "sessions.patch", {"model": " "},
     "invalid parameter 'model': a model ref such as openai/gpt-4o-mini, or null; got an empty string"),
    ("unknown job field", "automations.add", {"every": "1h", "message": "m", "evry": "2h"},
     "unknown parameter 'evry'"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "method", "params", "line"), WRONG_CALLS, ids=[c[0] for c in WRONG_CALLS])
async def test_each_wrong_call_gets_its_one_line(
    any_client: GatewayClient, what: str, method: str, params: dict[str, object], line: str
) -> None:
    with pytest.raises(UsageError) as refused:
        await any_client.call(method, **params)
    assert refused.value.message == line
    assert "\n" not in refused.value.message


async def test_a_bad_agent_id_is_refused_before_the_agent_is_looked_up(any_client: GatewayClient) -> None:
    # Upper case used to reach the config ("unknown agent"); the wire now says what an agent id is.
    with pytest.raises(UsageError, match=r"^invalid parameter 'agentId': 'ghost/../x' is not an agent id"):
        await any_client.call("hooks.list", agentId="ghost/../x")


async def test_unknown_keys_are_ignored_and_good_calls_still_work(any_client: GatewayClient) -> None:
    # OpenClaw's clients send fields of their own (`includeGlobal`, `limit` …): not an error.
    listed = await any_client.call("sessions.list", agentId="main", includeGlobal=True, limit=5)
    assert listed["sessions"] == [] and listed["count"] == 0
    assert (await any_client.call("health", probe=True))["ok"] is True
    history = await any_client.call("chat.history", sessionKey="AGENT:MAIN:Desk", limit=0)
    assert history == {"sessionKey": "agent:main:desk", "sessionId": None, "messages": []}
    # A null or empty optional parameter means "not given", as before.
    assert (await any_client.call("chat.history", sessionKey=None))["sessionKey"] == "agent:main:main"
    assert (await any_client.call("pairing.list", channel=None)) == {"pending": [], "approved": []}
    # outbox.retry still takes the id as a string of digits: past the params, to the outbox itself.
    with pytest.raises(NotFoundError, match=r"^no outbox entry 424242 "):
        await any_client.call("outbox.retry", id="424242")


async def test_the_callers_channel_comes_from_the_gateway_not_the_params(served: Served) -> None:
    local = LocalClient(served.gateway, channel="tui", owns_gateway=False)
    remote = await RemoteClient.connect(served.url, TOKEN, channel="tui")
    try:
        for n, client in enumerate((local, remote)):
            key = f"agent:main:spoof{n}"
            patched = await client.call("sessions.patch", key=key, model=None, **{CHANNEL_KEY: "telegram"})
            assert patched["entry"]["channel"] == "tui", client
    finally:
        await remote.close()


def test_every_method_declares_a_params_model_without_the_channel(served: Served) -> None:
    methods = served.gateway.methods
    assert {"agent", "memory.search", "skills.info", "automations.add", "subagents.wait", "hooks.enable",
            "outbox.retry", "sessions.compact"} <= set(methods)  # fmt: skip
    for name, method in methods.items():
        model = getattr(getattr(method, "func", method), "params_model", None)  # capability methods are partials
        assert model is not None, f"{name} takes no params model"
        properties = model.model_json_schema(by_alias=True).get("properties", {})
        assert not any(key.startswith("_") for key in properties), (name, properties)


def test_every_method_is_declared_once_with_its_scope(served: Served) -> None:
    # One declaration per method: its wire name, its scope and its handler together (claw/api/method.py), for
    # the core's, every capability's and the server's own alike; none falls back on the name rule.
    methods = {**served.gateway.methods, **served.server._server_methods}
    assert {"agent", "chat.send", "memory.search", "cron.add", "device.pair.list", "plugin.approval.resolve"} <= set(
        methods
    )
    for name, method in methods.items():
        assert isinstance(method, RpcMethod), f"{name} is not declared as an RpcMethod"
        assert method.name == name
        assert method.scope_for({}) in {*OPERATOR_SCOPES, QUESTIONS}, (name, method.scope_for({}))
