"""`claw init`: creates config, workspace, token and session store; a second run changes nothing."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

from claw.cli.init import DEFAULT_CONFIG
from claw.config import load_config, validate_config_dict
from claw.paths import Paths, bundled_dir

TEMPLATE = bundled_dir("workspace-template")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"", p.stat().st_mtime_ns, _mode(p))
        for p in sorted(root.rglob("*"))
    }


def test_template_has_every_workspace_file() -> None:
    names = {str(p.relative_to(TEMPLATE)) for p in TEMPLATE.rglob("*") if p.is_file()}
    expected = {"SOUL.md", "AGENTS.md", "TOOLS.md", "IDENTITY.md", "USER.md", "MEMORY.md"}
    assert names == expected | {"memory/README.md", "skills/README.md"}
    for name in names:
        text = (TEMPLATE / name).read_text(encoding="utf-8")
        assert 200 < len(text) < 2000, name


def test_init_creates_config_workspace_token_and_sessions(run_claw, claw_home: Path) -> None:
    done = run_claw("init")

    workspace = claw_home / "workspace"
    for src in TEMPLATE.rglob("*"):
        if src.is_file():
            copy = workspace / src.relative_to(TEMPLATE)
            assert copy.read_bytes() == src.read_bytes()
            assert _mode(copy) == 0o600
    for folder in (
        claw_home,
        workspace,
        workspace / "memory",
        workspace / "skills",
        claw_home / "agents",
        claw_home / "agents" / "main",
        claw_home / "agents" / "main" / "sessions",
    ):
        assert _mode(folder) == 0o700, folder
    token = claw_home / "gateway.token"
    assert _mode(token) == 0o600
    assert len(token.read_text().strip()) >= 40
    assert _mode(claw_home / "config.toml") == 0o600

    config = load_config(Paths.from_env({"CLAW_HOME": str(claw_home)}), environ={})
    assert config.gateway.port == 18789
    assert config.agent("main").model.primary is None
    assert str(workspace) in done.stdout
    assert 'claw agent -m "hello"' in done.stdout
    assert "agents.defaults.model" in done.stdout


def test_second_init_changes_nothing_and_keeps_user_edits(run_claw, claw_home: Path) -> None:
    run_claw("init")
    soul = claw_home / "workspace" / "SOUL.md"
    soul.write_text("my own soul\n")
    (claw_home / "config.toml").write_text((claw_home / "config.toml").read_text() + "# my note\n")
    before = _snapshot(claw_home)

    done = run_claw("init")

    assert _snapshot(claw_home) == before
    assert "Nothing changed" in done.stdout
    assert "created" not in done.stdout
    assert soul.read_text() == "my own soul\n"


def test_init_restores_only_missing_files(run_claw, claw_home: Path) -> None:
    run_claw("init")
    (claw_home / "workspace" / "SOUL.md").write_text("edited\n")
    (claw_home / "workspace" / "USER.md").unlink()
    token = (claw_home / "gateway.token").read_text()

    done = run_claw("init")

    assert (claw_home / "workspace" / "USER.md").read_bytes() == (TEMPLATE / "USER.md").read_bytes()
    assert (claw_home / "workspace" / "SOUL.md").read_text() == "edited\n"
    assert (claw_home / "gateway.token").read_text() == token
    assert "created 1 file, 0 folders" in done.stdout


def test_init_records_workspace_in_config(run_claw, claw_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "my-ws"
    run_claw("init", "--workspace", str(elsewhere))

    assert (elsewhere / "SOUL.md").is_file()
    assert not (claw_home / "workspace").exists()
    assert run_claw("config", "get", "agents.defaults.workspace").stdout.strip() == str(elsewhere)
    assert run_claw("workspace", "path").stdout.strip() == str(elsewhere)
    text = (claw_home / "config.toml").read_text()
    assert text.startswith("# claw configuration"), "comments must survive the edit"

    again = run_claw("init", "--workspace", str(elsewhere))
    assert "Nothing changed" in again.stdout


def test_init_for_another_agent(run_claw, claw_home: Path, tmp_path: Path) -> None:
    run_claw("init")
    run_claw("init", "--agent", "work", "--workspace", str(tmp_path / "work-ws"))

    config = load_config(Paths.from_env({"CLAW_HOME": str(claw_home)}), environ={})
    assert "work" in config.agent_ids
    assert config.file.agents.list["work"]["workspace"] == str(tmp_path / "work-ws")
    assert run_claw("workspace", "path", "--agent", "work").stdout.strip() == str(tmp_path / "work-ws")
    assert run_claw("workspace", "path").stdout.strip() == str(claw_home / "workspace")
    assert _mode(claw_home / "agents" / "work" / "sessions") == 0o700


def test_default_config_examples_are_valid_when_uncommented(tmp_path: Path) -> None:
    validate_config_dict(tomllib.loads(DEFAULT_CONFIG), tmp_path / "config.toml")
    uncommented = DEFAULT_CONFIG.replace('# model = "openai/gpt-4o-mini"', 'model = "openai/gpt-4o-mini"')
    uncommented = uncommented.replace("# [providers.ollama]", "[providers.ollama]").replace(
        '# baseUrl = "http://127.0.0.1:11434/v1"', 'baseUrl = "http://127.0.0.1:11434/v1"'
    )
    raw = tomllib.loads(uncommented)
    validate_config_dict(raw, tmp_path / "config.toml")
    assert raw["agents"]["defaults"]["model"] == "openai/gpt-4o-mini"
    assert raw["providers"]["ollama"]["baseUrl"].endswith("/v1")


def test_next_steps_keep_the_model_claw_model_names(run_claw) -> None:
    done = run_claw("init", env={"CLAW_MODEL": "ollama/qwen3:8b"})
    assert "claw config set agents.defaults.model ollama/qwen3:8b" in done.stdout
    assert "gpt-4o-mini" not in done.stdout
