"""HOOK.md parsing, discovery across locations, and the handler loader's safety checks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claw.hooks.discovery import HookRoot, discover
from claw.hooks.hook import Hook
from claw.hooks.loader import HookLoadError, load_handler
from claw.hooks.manifest import HookManifestError, parse_hook
from claw.hooks.registry import hook_state
from tests.hooks.conftest import write_hook


def _manifest(tmp_path: Path, text: str, handler: bool = True) -> Path:
    directory = tmp_path / "h"
    directory.mkdir(exist_ok=True)
    (directory / "HOOK.md").write_text(text, encoding="utf-8")
    if handler:
        (directory / "handler.py").write_text("def handle(event):\n    pass\n", encoding="utf-8")
    return directory


def test_openclaw_style_metadata_is_read(tmp_path: Path) -> None:
    directory = _manifest(
        tmp_path,
        '---\nname: logger\ndescription: Logs.\nmetadata: {"openclaw": {"emoji": "📝", "events": ["command"],'
        ' "export": "main"}}\n---\n# body\n',
    )
    hook = parse_hook(directory, "managed")
    assert (hook.name, hook.events, hook.export, hook.emoji) == ("logger", ("command",), "main", "📝")
    assert hook.handles("command:new") and hook.handles("command:stop") and not hook.handles("run:end")


@pytest.mark.parametrize(
    ("text", "handler", "reason"),
    [
        ("no frontmatter\n", True, "no YAML frontmatter"),
        ("---\nname: x\n---\n", True, "missing 'events'"),
        ("---\nname: x\nevents: [Command New]\n---\n", True, "invalid event 'Command New'"),
        ("---\nname: x.y\nevents: [run:end]\n---\n", True, "invalid name 'x.y'"),
        ("---\nname: x\nevents: [run:end]\nexport: 'not a name'\n---\n", True, "invalid export"),
        ("---\nname: x\nevents: [run:end]\n---\n", False, "no handler.py next to HOOK.md"),
    ],
)
def test_bad_manifests_say_why(tmp_path: Path, text: str, handler: bool, reason: str) -> None:
    with pytest.raises(HookManifestError, match=reason.replace("(", r"\(").replace(".", r"\.")):
        parse_hook(_manifest(tmp_path, text, handler), "workspace")


def test_precedence_shadowing_and_run_order(tmp_path: Path) -> None:
    ws, managed, bundled = tmp_path / "ws", tmp_path / "managed", tmp_path / "bundled"
    write_hook(ws, "same", ["run:end"], "def handle(event): pass\n")
    write_hook(managed, "same", ["run:end"], "def handle(event): pass\n")
    write_hook(bundled, "same", ["run:end"], "def handle(event): pass\n")
    write_hook(bundled, "zeta", ["run:end"], "def handle(event): pass\n")
    write_hook(managed, "alpha", ["run:end"], "def handle(event): pass\n")
    outside = write_hook(tmp_path / "elsewhere", "sneaky", ["run:end"], "def handle(event): pass\n")
    os.symlink(outside, ws / "sneaky")
    found = discover([HookRoot("workspace", ws), HookRoot("managed", managed), HookRoot("bundled", bundled)])
    assert [(h.name, h.source) for h in found.hooks] == [
        ("zeta", "bundled"),
        ("alpha", "managed"),
        ("same", "workspace"),
    ]
    assert [(s.hook.source, s.winner.source) for s in found.shadowed] == [
        ("managed", "workspace"),
        ("bundled", "workspace"),
    ]
    assert [(bad.name, bad.reason) for bad in found.invalid] == [
        ("sneaky", "resolves outside its hooks folder (symlink)")
    ]


def test_loader_refuses_unsafe_files_and_reloads_changed_ones(tmp_path: Path) -> None:
    directory = write_hook(tmp_path, "h", ["run:end"], "def handle(event):\n    return 1\n")
    hook = Hook("h", "", ("run:end",), "managed", directory)
    assert load_handler(hook)(None) == 1
    (directory / "handler.py").write_text("HOOK = 'h'\ndef handle(event):\n    return 22\n", encoding="utf-8")
    assert load_handler(hook)(None) == 22
    os.chmod(directory / "handler.py", 0o666)
    with pytest.raises(HookLoadError, match="writable by every user"):
        load_handler(hook)
    os.chmod(directory / "handler.py", 0o644)
    missing = Hook("h", "", ("run:end",), "managed", directory, export="absent")
    with pytest.raises(HookLoadError, match=r"has no function absent\(event\)"):
        load_handler(missing)


def test_enabled_state_rules(tmp_path: Path) -> None:
    from claw.settings.hooks import HooksSettings

    def state(source: str, **settings: object) -> tuple[bool, str]:
        found = hook_state(Hook("h", "", ("run:end",), source, tmp_path), HooksSettings.model_validate(settings))  # type: ignore[arg-type]
        return found.enabled, found.reason

    assert state("managed") == (True, "managed hooks run unless disabled")
    assert state("bundled")[0] is False and state("workspace")[0] is False
    assert state("managed", enabled=False) == (False, "every hook is off (hooks.enabled = false)")
    assert state("bundled", entries={"h": {"enabled": True}}) == (True, "enabled in config")
    assert state("managed", entries={"h": {"enabled": False}}) == (False, "disabled in config")
    pinned = {"h": {"enabled": True, "source": "bundled"}}
    assert state("workspace", entries=pinned)[0] is False and state("bundled", entries=pinned)[0] is True
