"""SKILL.md parsing: the frontmatter forms OpenClaw skills use, and a clear reason for each malformed file."""

from __future__ import annotations

from pathlib import Path

import pytest

from claw.skills.parse import SkillParseError, parse_skill_text

DIR = Path("/skills/x")


def parse(text: str):
    return parse_skill_text(text, DIR, "workspace")


def test_minimal_skill_has_openclaw_defaults() -> None:
    skill = parse("---\nname: notes\ndescription: Take notes.\n---\nbody\n")
    assert (skill.name, skill.description, skill.source) == ("notes", "Take notes.", "workspace")
    assert skill.user_invocable and not skill.disable_model_invocation and not skill.always
    assert skill.requires.empty and skill.os == ()
    assert skill.file == DIR / "SKILL.md"


@pytest.mark.parametrize(
    "metadata",
    [
        '{"openclaw": {"requires": {"bins": ["gh"], "anyBins": ["a", "b"], "env": ["TOKEN"]}, "os": ["darwin"]}}',
        '{"claw": {"requires": {"bins": ["gh"], "anyBins": ["a", "b"], "env": ["TOKEN"]}, "os": ["darwin"]}}',
        '{"requires": {"bins": ["gh"], "anyBins": ["a", "b"], "env": ["TOKEN"]}, "os": ["darwin"]}',
        "\n  openclaw:\n    requires:\n      bins: [gh]\n      anyBins: [a, b]\n      env: [TOKEN]\n    os: [macos]",
        '\'{"clawdbot": {"requires": {"bins": ["gh"], "anyBins": ["a", "b"], "env": ["TOKEN"]}, "os": "darwin"}}\'',
    ],
    ids=["json-openclaw", "json-claw", "json-direct", "yaml-openclaw", "json-string-clawdbot"],
)
def test_metadata_in_every_form(metadata: str) -> None:
    skill = parse(f"---\nname: gh\ndescription: GitHub.\nmetadata: {metadata}\n---\n")
    assert skill.requires.bins == ("gh",)
    assert skill.requires.any_bins == ("a", "b")
    assert skill.requires.env == ("TOKEN",)
    assert skill.os == ("darwin",)


def test_flags_and_extra_fields() -> None:
    skill = parse(
        "---\nname: deploy\ndescription: Deploy.\nuser-invocable: false\ndisable-model-invocation: true\n"
        'homepage: https://example.org\nmetadata: {"openclaw": {"always": true, "primaryEnv": "DEPLOY_KEY", '
        '"skillKey": "dep", "requires": {"config": ["gateway.port"]}}}\n---\n'
    )
    assert not skill.user_invocable and skill.disable_model_invocation and skill.always
    assert (skill.primary_env, skill.config_key, skill.homepage) == ("DEPLOY_KEY", "dep", "https://example.org")
    assert skill.requires.config == ("gateway.port",)


def test_openclaw_single_line_values_that_strict_yaml_rejects() -> None:
    skill = parse(
        "---\nname: notes\ndescription: Notes: how to keep them tidy\n"
        'metadata: {"openclaw": {"requires": {"bins": ["git"]}}}\n---\n'
    )
    assert skill.description == "Notes: how to keep them tidy"
    assert skill.requires.bins == ("git",)


def test_command_name_is_sanitised() -> None:
    assert parse("---\nname: Daily-Brief.v2\ndescription: d\n---\n").command_name == "daily_brief_v2"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("name: x\ndescription: y\n", "no YAML frontmatter"),
        ("---\nname: x\ndescription: y\n", "never closed"),
        ("---\n---\nbody", "frontmatter is empty"),
        ("---\n- a\n- b\n---\n", "must be a mapping"),
        ("---\ndescription: y\n---\n", "missing required 'name'"),
        ("---\nname: x\n---\n", "missing required 'description'"),
        ("---\nname: x\ndescription: '  '\n---\n", "'description' is empty"),
        ("---\nname: [a, b]\ndescription: y\n---\n", "'name' must be text"),
        ("---\nname: ../evil\ndescription: y\n---\n", "invalid name '../evil'"),
        ("---\nname: .hidden\ndescription: y\n---\n", "invalid name"),
        ("---\nname: x\ndescription: y\nmetadata:\n  requires: [gh\n---\n", "not valid YAML at line"),
        ("---\nname: x\ndescription: y\nmetadata: 42\n---\n", "metadata must be a mapping"),
        ("---\nname: x\ndescription: y\nmetadata: '{\"requires\": '\n---\n", "metadata is neither JSON nor YAML"),
        ('---\nname: x\ndescription: y\nmetadata: {"requires": {"bins": "a b", "env": [1]}}\n---\n', "requires.env"),
        ('---\nname: x\ndescription: y\nmetadata: {"requires": ["gh"]}\n---\n', "requires must be a mapping"),
        ('---\nname: x\ndescription: y\nmetadata: {"os": ["beos"]}\n---\n', "unknown platform 'beos'"),
        ("---\nname: x\ndescription: y\nuser-invocable: maybe\n---\n", "user-invocable must be true or false"),
        ('---\nname: x\ndescription: y\nmetadata: {"openclaw": "yes"}\n---\n', "metadata.openclaw must be a mapping"),
    ],
)
def test_malformed_frontmatter_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(SkillParseError) as caught:
        parse(text)
    assert reason in str(caught.value)
