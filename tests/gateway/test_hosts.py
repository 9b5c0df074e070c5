"""Each capability is handed the gateway typed as its own host protocol: the gateway must offer every member
those protocols name, with the parameters they name, and what it offers capabilities must behave as the
protocols say. (A type checker would see a drift at `claw.compose`; this catches it without one.)"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from claw.automations.host import AutomationsHost
from claw.channels.gateway_host import ChannelsHost
from claw.compose import build_gateway
from claw.config import load_config
from claw.gateway.dispatch_result import NoRunStarted
from claw.gateway.gateway import Gateway
from claw.hooks.host import HooksHost
from claw.paths import Paths
from claw.skills.host import SkillsHost
from claw.subagents.host import SubagentsHost
from claw.usage.host import UsageHost
from claw.vocab import run_event
from claw.vocab.msg_context import MsgContext
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

HOSTS = (AutomationsHost, ChannelsHost, HooksHost, SkillsHost, SubagentsHost, UsageHost)


def _members(protocol: type) -> dict[str, Any]:
    """The members `protocol` declares, its own and those of the protocols it is built from."""
    found: dict[str, Any] = {}
    for cls in reversed(protocol.__mro__):
        if getattr(cls, "_is_protocol", False) and cls.__module__ != "typing":
            found.update({name: value for name, value in vars(cls).items() if not name.startswith("_")})
    return found


@pytest.mark.parametrize("host", HOSTS, ids=lambda h: h.__name__)
def test_the_gateway_offers_every_member_of_each_host_protocol(host: type, claw_env: ClawEnv) -> None:
    paths = Paths.from_env()
    gateway = build_gateway(paths, load_config(paths))
    members = _members(host)
    assert members, f"{host.__name__} names no member"
    for name, declared in members.items():
        assert hasattr(gateway, name), f"Gateway has no {name!r}, which {host.__name__} names"
        if isinstance(declared, property):
            continue
        offered = inspect.signature(getattr(Gateway, name))
        for param in inspect.signature(declared).parameters.values():
            assert param.name in offered.parameters, f"Gateway.{name} takes no {param.name!r} ({host.__name__})"
            assert offered.parameters[param.name].kind == param.kind, f"Gateway.{name}({param.name}) differs"
        assert inspect.iscoroutinefunction(getattr(Gateway, name)) == inspect.iscoroutinefunction(declared), name


async def test_start_run_returns_the_queued_run_and_refuses_a_command(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("hello back"))
    paths = Paths.from_env()
    gateway = build_gateway(paths, load_config(paths))
    run = await gateway.start_run(MsgContext(body="hello", session_key="host-test"), lane="nested")
    assert gateway.find_run(run.id) is run and run.lane == "nested"
    assert run in gateway.active_runs(run.session_key)
    outcome = await run.wait(30)
    assert outcome is not None and outcome.text == "hello back"
    with pytest.raises(NoRunStarted, match=r"did not start a run \(command\)") as refused:
        await gateway.start_run(MsgContext(body="/status", command_authorized=True), lane="nested")
    assert refused.value.result.reply is not None and "Session" in refused.value.result.reply
    await gateway.close()


async def test_publish_lifecycle_adds_to_a_running_run_and_never_after_its_end(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("done"))
    paths = Paths.from_env()
    gateway = build_gateway(paths, load_config(paths))
    run = await gateway.start_run(MsgContext(body="go"), lane="main")
    gateway.publish_lifecycle(run, run_event.subagent_spawned("child", "agent:main:subagent:x"))
    await run.wait(30)
    gateway.publish_lifecycle(run, run_event.subagent_spawned("late", "agent:main:subagent:y"))
    phases = [e.data.get("phase") for e in run.events if e.stream == run_event.Stream.LIFECYCLE]
    assert phases[:2] == [run_event.Phase.ACCEPTED, run_event.Phase.SUBAGENT]
    assert phases[-1] == run_event.Phase.END  # the terminal event stays the last
    assert not any(e.data.get("childRunId") == "late" for e in run.events)
    await gateway.close()
