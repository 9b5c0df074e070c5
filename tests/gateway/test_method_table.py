"""A capability's RPC methods are built when its namespace is first called, not when the gateway is built:
a one-shot turn imports no capability's methods module, and what `Gateway.use` refused still is refused."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from claw.api.broadcasts import Broadcasts
from claw.api.core import CORE_METHODS
from claw.config import load_config
from claw.gateway.capability import BaseCapability, Method
from claw.gateway.gateway import Gateway
from claw.gateway.method_table import MethodTable
from claw.paths import Paths
from tests.support.fixtures import ClawEnv

REPO = Path(__file__).resolve().parents[2]


class Counted(BaseCapability):
    """Offers `names` under `namespaces`; counts how often it was asked for them."""

    def __init__(self, name: str, namespaces: tuple[str, ...], names: tuple[str, ...]) -> None:
        self.name = name
        self.method_namespaces = namespaces
        self.names = names
        self.asked = 0

    def methods(self) -> Mapping[str, Method]:
        self.asked += 1

        async def answer(gw: object, params: dict[str, Any]) -> str:
            return self.name

        return dict.fromkeys(self.names, answer)


async def test_a_namespace_is_built_on_its_first_call_and_once(claw_env: ClawEnv) -> None:
    paths = Paths.from_env()
    gw = Gateway(paths, load_config(paths), methods=CORE_METHODS, broadcasts=Broadcasts)
    lazy = Counted("lazy", ("lazy.",), ("lazy.one", "lazy.two"))
    other = Counted("other", ("other.",), ("other.one",))
    gw.use(lazy, other)
    assert (lazy.asked, other.asked) == (0, 0)
    assert await gw.call_method("lazy.one", {}) == "lazy"
    assert await gw.call_method("lazy.two", {}) == "lazy"
    assert (lazy.asked, other.asked) == (1, 0)  # only the namespace called
    assert "other.one" in gw.methods and other.asked == 1
    assert "other.none" not in gw.methods and "nowhere.at.all" not in gw.methods
    assert sorted(gw.methods) == sorted([*CORE_METHODS, "lazy.one", "lazy.two", "other.one"])
    await gw.close()


def test_a_capability_without_namespaces_is_asked_at_once() -> None:
    table = MethodTable({})
    eager = Counted("eager", (), ("eager.go",))
    table.add(eager)
    assert eager.asked == 1 and "eager.go" in table


def test_what_use_refused_is_refused_when_the_table_is_built() -> None:
    table = MethodTable({"health": CORE_METHODS["health"]})
    with pytest.raises(ValueError, match=r"the method namespace 'health' is taken"):
        table.add(Counted("core-clash", ("health",), ("health",)))
    table.add(Counted("one", ("one.",), ("one.a",)))
    with pytest.raises(ValueError, match=r"the method namespace 'one\.' is taken"):
        table.add(Counted("two", ("one.",), ("one.b",)))
    table.add(Counted("stray", ("stray.",), ("stray.a", "elsewhere.b")))
    with pytest.raises(ValueError, match=r"stray: the method 'elsewhere\.b' is outside stray\."):
        table.names()


def test_a_one_shot_gateway_imports_no_capability_methods_module() -> None:
    probe = (
        "import os, sys, tempfile\n"
        "os.environ['CLAW_HOME'] = tempfile.mkdtemp()\n"
        "from claw.compose import build_gateway\n"
        "from claw.config import load_config\n"
        "from claw.paths import Paths\n"
        "paths = Paths.from_env()\n"
        "gw = build_gateway(paths, load_config(paths))\n"
        "print(sorted(m for m in sys.modules if m.startswith('claw.') and m.endswith('.methods')))\n"
        "'memory.status' in gw.methods\n"
        "print('claw.memory.methods' in sys.modules, 'claw.skills.methods' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    loaded, after = done.stdout.splitlines()
    assert loaded == "[]"  # the core's table is claw.api's; no capability's methods module
    assert after == "True False"


class FailsToClose(BaseCapability):
    name = "fails-to-close"

    async def aclose(self) -> None:
        raise RuntimeError("child still running")


async def test_a_capability_that_fails_to_close_is_logged_and_the_others_still_close(
    claw_env: ClawEnv, caplog: pytest.LogCaptureFixture
) -> None:
    paths = Paths.from_env()
    gw = Gateway(paths, load_config(paths), methods=CORE_METHODS, broadcasts=Broadcasts)
    later = Counted("later", (), ())
    closed: list[str] = []
    later.close = lambda: closed.append("later")  # type: ignore[method-assign]
    gw.use(FailsToClose(), later)
    await gw.close()
    assert closed == ["later"]
    assert "capability fails-to-close did not close cleanly: child still running" in caplog.text
