"""`claw init`: create the config, the workspace, the gateway token and the session store.

Safe to run again: it only creates what is missing and never overwrites a file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import typer

from claw.cli.common import AgentOption
from claw.errors import ClawError
from claw.paths import Paths, bundled_dir, check_agent_id, ensure_private_dir

DEFAULT_CONFIG = """\
# claw configuration. Keys are camelCase; every key shown commented out is at its default.
# Change values with `claw config set KEY VALUE` (comments are kept) or edit this file.

# Providers: any OpenAI-compatible endpoint. "openai" needs no section: it uses
# OPENAI_API_KEY / OPENAI_BASE_URL. A section's name is the "provider" in "provider/model".
# Prefer apiKeyEnv (the name of an environment variable) to an apiKey written here.
#
# [providers.openrouter]        # model = "openrouter/anthropic/claude-3.5-sonnet"
# baseUrl = "https://openrouter.ai/api/v1"
# apiKeyEnv = "OPENROUTER_API_KEY"
#
# [providers.ollama]            # model = "ollama/llama3.2"
# baseUrl = "http://127.0.0.1:11434/v1"
# apiKey = "ollama"             # any non-empty value; Ollama ignores it
#
# [providers.vllm]              # model = "vllm/<the model vLLM serves>"
# baseUrl = "http://127.0.0.1:8000/v1"
#
# [providers.llamacpp]          # llama.cpp's llama-server
# baseUrl = "http://127.0.0.1:8080/v1"

# More agents inherit [agents.defaults] and override keys in their own section:
# [agents.list.work]
# model = "ollama/llama3.2"

[agents.defaults]
# The model, as "provider/model". CLAW_MODEL overrides it for one shell.
# model = "openai/gpt-4o-mini"
#
# Or a primary plus the models to fail over to (rate limits, 5xx, timeouts), in order:
# model = { primary = "openai/gpt-4o-mini", fallbacks = ["ollama/llama3.2"] }
#
# workspace = "~/claw-workspace"   # the main agent's workspace folder
# maxConcurrent = 4                # runs at once, across all sessions
# bootstrapMaxChars = 20000        # per workspace file injected into the prompt
# bootstrapTotalMaxChars = 150000  # all workspace files together

[gateway]
# bind = "127.0.0.1"            # keep it on loopback unless you know why not
# port = 18789
"""


def init(
    workspace: Path | None = typer.Option(
        None, "--workspace", "-w", help="Put the agent's workspace here (recorded in config.toml)."
    ),
    agent: str = AgentOption,
) -> None:
    """Set claw up: config, workspace, gateway token, session store. Never overwrites a file."""
    from claw import config_edit
    from claw.config import load_config
    from claw.workspace import seed_workspace, workspace_dir

    check_agent_id(agent)
    paths = Paths.from_env()
    done: list[tuple[str, Path, str]] = []

    def note(what: str, path: Path, created: bool, detail: str = "") -> None:
        done.append((what, path, detail or ("created" if created else "already there")))

    folders = [("config dir", paths.config_dir), ("data dir", paths.data_dir)]
    if paths.config_dir == paths.data_dir:
        folders = [("claw home", paths.data_dir)]
    for what, folder in folders:
        existed = folder.is_dir()
        ensure_private_dir(folder)
        if not existed:
            note(what, folder, True)

    config_created = _create_file(paths.config_file, DEFAULT_CONFIG)
    load_config(paths)  # an existing file that does not load is reported before anything edits it
    changed = ["created"] if config_created else []
    with config_edit.editing(paths.config_file) as doc:
        if agent != "main" and agent not in doc.get("agents", {}).get("list", {}):
            config_edit.ensure_table(doc, ("agents", "list", agent))
            changed.append(f"added [agents.list.{agent}]")
        if workspace is not None:
            key = _workspace_key(doc, agent)
            wanted = str(workspace.expanduser().resolve())
            if config_edit.lookup(doc, key)[1] != wanted:
                config_edit.set_value(doc, key, wanted)
                changed.append(f"set {'.'.join(key)}")
    note("config", paths.config_file, bool(changed), "; ".join(changed))

    config = load_config(paths)
    ws = workspace_dir(paths, config, agent)
    template = bundled_dir("workspace-template")
    if not template.is_dir():
        raise ClawError(f"workspace template missing at {template}; reinstall claw")
    created = seed_workspace(template, ws)
    files = sum(1 for p in created if p.is_file())
    seeded = f"created {_count(files, 'file')}, {_count(len(created) - files, 'folder')}" if created else ""
    note("workspace", ws, bool(created), seeded)

    note("gateway token", paths.token_file, _create_file(paths.token_file, secrets.token_urlsafe(32)))

    sessions = paths.sessions_dir(agent)
    existed = sessions.is_dir()
    # mkdir(parents=True) gives only the leaf the 0700 mode, so create each level under data_dir.
    for folder in reversed(sessions.relative_to(paths.data_dir).parents):
        ensure_private_dir(paths.data_dir / folder)
    ensure_private_dir(sessions)
    note("sessions", sessions, not existed)

    _print_summary(agent, done, ws)


def _workspace_key(doc: object, agent: str) -> tuple[str, ...]:
    # The main agent's workspace is agents.defaults.workspace, unless [agents.list.main] already sets one.
    from claw.config_edit import lookup

    own = ("agents", "list", agent, "workspace")
    if agent != "main" or lookup(doc, own)[0]:
        return own
    return ("agents", "defaults", "workspace")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _create_file(path: Path, text: str) -> bool:
    """Write `text` to a new file with mode 0600; False (and nothing written) if it exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return True


def _print_summary(agent: str, done: list[tuple[str, Path, str]], ws: Path) -> None:
    width = max(len(what) for what, _, _ in done)
    typer.echo(f"claw init (agent {agent})")
    for what, path, detail in done:
        typer.echo(f"  {what:<{width}}  {path}  [{detail}]")
    if all(detail == "already there" for _, _, detail in done):
        typer.echo("Nothing changed: everything was already set up.")
    if agent != "main":  # the next steps must act on this agent, not on main
        typer.echo(f"\nWorkspace: {ws}  (edit with `claw workspace edit soul --agent {agent}`)")
        typer.echo(f"Next steps for agent {agent}:")
        typer.echo(f"  claw config set agents.list.{agent}.model ollama/llama3.2   # else agents.defaults.model")
        typer.echo(f'  claw agent --agent {agent} -m "hello"')
        typer.echo(f'  # to route a channel to it: [[bindings]] with agentId = "{agent}" (`claw agents bindings`)')
        return
    typer.echo(f"\nWorkspace: {ws}  (edit with `claw workspace edit soul`)")
    typer.echo("Next steps:")
    if model := os.environ.get("CLAW_MODEL"):  # already chosen for this shell: keep it, do not suggest another
        typer.echo(f"  claw config set agents.defaults.model {model}   # CLAW_MODEL's, kept without the variable")
    else:
        typer.echo("  claw config set agents.defaults.model openai/gpt-4o-mini   # or ollama/…, see config.toml")
    typer.echo("  export OPENAI_API_KEY=…                                   # if your provider needs a key")
    typer.echo('  claw agent -m "hello"')
