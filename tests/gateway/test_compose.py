"""Capabilities composed in one place: what `build_gateway` puts together, and what `Gateway.use` does with
a capability's offers. Nothing registers itself on import: a bare `Gateway` serves only the core."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from claw.api.broadcasts import Broadcasts
from claw.api.core import CORE_METHODS
from claw.automations.capability import AutomationsCapability
from claw.channels.capability import ChannelsCapability
from claw.compose import build_gateway
from claw.config import load_config
from claw.errors import NotFoundError, UsageError
from claw.gateway.capability import BaseCapability, Command, HttpRoute, Method
from claw.gateway.commands import CommandCall
from claw.gateway.gateway import Gateway
from claw.hooks.capability import HooksCapability
from claw.memory.capability import MemoryCapability
from claw.memory.recall import MemoryRecall
from claw.paths import Paths
from claw.skills.capability import SkillsCapability
from claw.skills.section import SkillsSection
from claw.subagents.capability import SubagentsCapability
from tests.support.fixtures import ClawEnv

REPO = Path(__file__).resolve().parents[2]


class Echo(BaseCapability):
    """A capability that offers one of everything."""

    name = "echo"

    def __init__(self) -> None:
        self.closed = False
        self.stopped: list[str] = []

    def commands(self) -> Sequence[Command]:
        async def echo(gw: Gateway, call: CommandCall) -> str:
            return f"echo {call.args}"

        return (Command("echo", "say it back", echo),)

    def stop_listeners(self) -> Sequence[Any]:
        def stop(gw: Gateway, session_key: str) -> int:
            self.stopped.append(session_key)
            return 2

        return (stop,)

    def methods(self) -> Mapping[str, Method]:
        async def echo(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
            return {"said": params["text"], "channel": params["_channel"]}

        return {"echo.say": echo}

    def routes(self) -> Sequence[HttpRoute]:
        async def handler(request: Any) -> None:
            return None

        return (HttpRoute("POST", "/echo", handler),)

    def close(self) -> None:
        self.closed = True


def _gateway(bare: bool = False) -> Gateway:
    paths = Paths.from_env()
    config = load_config(paths)
    return Gateway(paths, config, methods=CORE_METHODS, broadcasts=Broadcasts) if bare else build_gateway(paths, config)


def test_build_gateway_uses_every_capability_in_prompt_order(claw_env: ClawEnv) -> None:
    gw = _gateway()
    kinds = [type(c) for c in gw.capabilities]
    assert kinds[0] is MemoryCapability and kinds.index(SkillsCapability) > 0
    for kind in (AutomationsCapability, SubagentsCapability, HooksCapability, ChannelsCapability):
        assert gw.capability(kind) in gw.capabilities
    sections = [type(s) for s in gw.runner.sections]
    assert sections.index(MemoryRecall) < sections.index(SkillsSection)  # memory's section comes first
    wanted = {"memory.search", "skills.list", "automations.add", "subagents.list", "hooks.list", "channels.status"}
    assert wanted <= set(gw.methods)
    assert {"context", "compact", "skill", "subagents"} <= {c.name for c in gw.commands.listing()}
    assert {"memory_search", "sessions_spawn", "automations"} <= set(gw.tools.names)
    assert {route.path for route in gw.http_routes()} == {
        "/hooks/{name}",
        "/telegram/{account}",
        "/feishu/{account}",
        "/dingtalk/{account}",
        "/slack/{account}",
        "/automations/webhook/{name}",
        "/automations/gmail",
        "/mcp",
    }


async def test_a_bare_gateway_serves_only_the_core(claw_env: ClawEnv) -> None:
    gw = _gateway(bare=True)
    assert set(gw.methods) == set(CORE_METHODS)
    with pytest.raises(UsageError, match="unknown method: memory.search"):
        await gw.call_method("memory.search", {"query": "x"})
    with pytest.raises(NotFoundError):
        gw.capability(MemoryCapability)
    assert (await gw.call_method("health", {}))["ok"] is True
    await gw.close()


async def test_what_a_capability_offers_reaches_every_table(claw_env: ClawEnv) -> None:
    gw = _gateway(bare=True)
    echo = Echo()
    gw.use(echo)
    assert await gw.call_method("echo.say", {"text": "hi"}, channel="ws") == {"said": "hi", "channel": "ws"}
    assert [r.path for r in gw.http_routes()] == ["/echo"]
    call = CommandCall("echo", "hello", "main", "agent:main:main")
    assert await gw.commands.run(gw, call) == "echo hello"
    stop = CommandCall("stop", "", "main", "agent:main:main")
    assert await gw.commands.run(gw, stop) == "Stopped 2 runs."
    assert echo.stopped == ["agent:main:main"]
    assert "echo" in {row["name"] for row in (await gw.call_method("commands.list", {}))["commands"]}
    await gw.close()
    assert echo.closed


def test_a_name_taken_twice_is_refused(claw_env: ClawEnv) -> None:
    gw = _gateway(bare=True)
    gw.use(Echo())
    tables = (dict(gw.methods), len(gw.commands.listing()), list(gw.capabilities))
    with pytest.raises(ValueError, match=r"echo: the command /echo is taken"):
        gw.use(Echo())
    assert (dict(gw.methods), len(gw.commands.listing()), list(gw.capabilities)) == tables  # nothing half-added


def test_two_gateways_keep_their_own_state(claw_env: ClawEnv) -> None:
    one, two = _gateway(), _gateway()
    assert one.capability(SubagentsCapability).registry is not two.capability(SubagentsCapability).registry
    assert one.capability(MemoryCapability).manager is not two.capability(MemoryCapability).manager


def test_importing_a_capability_registers_nothing() -> None:
    # Importing every capability's modules, then building a bare gateway: still only the core.
    probe = (
        "import claw.compose, claw.memory.methods, claw.skills.methods, claw.hooks.methods, claw.channels.methods\n"
        "from claw.gateway.gateway import Gateway\n"
        "from claw.api.core import CORE_METHODS\n"
        "from claw.api.broadcasts import Broadcasts\n"
        "from claw.config import load_config\n"
        "from claw.paths import Paths\n"
        "import os, tempfile\n"
        "os.environ['CLAW_HOME'] = tempfile.mkdtemp()\n"
        "paths = Paths.from_env()\n"
        "gw = Gateway(paths, load_config(paths), methods=CORE_METHODS, broadcasts=Broadcasts)\n"
        "print(sorted(gw.methods) == sorted(CORE_METHODS), len(gw.commands.listing()), len(gw.runner.sections))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.split() == ["True", "6", "0"]


def test_nothing_is_loaded_by_a_name_in_a_string() -> None:
    found = [
        f"{path.relative_to(REPO)}:{n}"
        for path in (REPO / "claw").rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bimport_module\b|__import__\(", line)
    ]
    assert found == []
