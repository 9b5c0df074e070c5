"""One error tree: every exception class claw defines derives from `ClawError` (claw/errors.py).

So a caller (the CLI's `main`, a tool call, a run, a channel's ingress) can catch what claw raises by one
name, and each carries its one-line `message` and its `exit_code`. A class that must stay outside is
listed in `OUTSIDE` with the reason.
"""

from __future__ import annotations

import importlib
import pkgutil

import claw
from claw.errors import ClawError

OUTSIDE = {
    "claw.channels.reconnect.Drop": "control flow: ends one connection inside `Reconnector`, which reconnects",
    "claw.channels.discord.gateway._Drop": "control flow: `Drop` with Discord's resume flag",
    "claw.tools.shell_chain._Hazard": "private signal of the splitter, caught in its module",
    "claw.tools.script_rules._Unreadable": "private signal of the sed scanner, caught in its module",
}
"""Exception classes that are not errors a caller may catch, each with why."""


def _claw_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined in claw/, by dotted name: all modules imported, then the subclasses walked."""
    for module in pkgutil.walk_packages(claw.__path__, "claw."):
        if module.name != "claw.__main__":  # it runs the CLI
            importlib.import_module(module.name)
    found: dict[str, type[BaseException]] = {}
    todo: list[type[BaseException]] = [BaseException]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__ == "claw" or sub.__module__.startswith("claw."):
                found[f"{sub.__module__}.{sub.__qualname__}"] = sub
    return found


def test_every_exception_claw_defines_is_a_claw_error() -> None:
    found = _claw_exceptions()
    outside = sorted(name for name, cls in found.items() if not issubclass(cls, ClawError) and name not in OUTSIDE)
    assert not outside, f"derive these from claw.errors.ClawError (or list them in OUTSIDE with why): {outside}"
    assert set(OUTSIDE) <= set(found), f"gone, drop from OUTSIDE: {sorted(set(OUTSIDE) - set(found))}"
    assert not [name for name in OUTSIDE if issubclass(found[name], ClawError)], "in the tree now: drop from OUTSIDE"


def test_errors_that_were_value_errors_still_are() -> None:
    """Callers that catch `ValueError` (a platform frame reader, pydantic validators) keep catching them."""
    from claw.channels.feishu.crypto import CryptoError
    from claw.channels.feishu.frame import FrameError
    from claw.hooks.manifest import HookManifestError
    from claw.skills.frontmatter import FrontmatterError
    from claw.skills.parse import SkillParseError
    from claw.strict_json import JsonError, loads_strict

    for cls in (CryptoError, FrameError, HookManifestError, FrontmatterError, SkillParseError, JsonError):
        assert issubclass(cls, ValueError) and issubclass(cls, ClawError), cls
    try:
        loads_strict('{"a": 1, "a": 2}')
    except ValueError as exc:
        assert isinstance(exc, JsonError) and exc.exit_code == 1 and str(exc) == exc.message == "duplicate key 'a'"
    else:
        raise AssertionError("a duplicate key was accepted")
