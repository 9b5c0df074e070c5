"""`claw doctor`'s workspace check: the folder, its bootstrap files, and their sizes against the caps.

The sizes are measured as `claw workspace show` measures them (`claw.workspace.measure`).
"""

from __future__ import annotations

from pathlib import Path

from claw.config import Config
from claw.finding import Finding, agent_key, combine, fail, listed, warn
from claw.paths import Paths, bundled_dir
from claw.workspace import BOOTSTRAP_NAMES, measure, workspace_dir

NAME = "workspace"


def missing_bootstrap(workspace: Path, template: Path) -> list[str]:
    """Bootstrap files the template has and the workspace lacks (what `claw init` would create)."""
    names = BOOTSTRAP_NAMES.values()
    return [name for name in names if (template / name).is_file() and not (workspace / name).exists()]


def check_workspace(paths: Paths, config: Config, agent_id: str) -> Finding:
    workspace = workspace_dir(paths, config, agent_id)
    init = "claw init" if agent_id == "main" else f"claw init --agent {agent_id}"
    if not workspace.is_dir():
        return fail(NAME, f"{workspace} does not exist", init)
    settings = config.agent(agent_id)
    cap, total_cap = settings.bootstrap_max_chars, settings.bootstrap_total_max_chars
    hardlinks = settings.tools.files.allow_hardlinks
    sizes = [measure(workspace / name, cap, allow_hardlinks=hardlinks) for name in BOOTSTRAP_NAMES.values()]
    problems: list[Finding] = []

    missing = missing_bootstrap(workspace, bundled_dir("workspace-template"))
    if missing:
        fix = "claw doctor --fix (copies them from the template, overwriting nothing)"
        problems.append(warn(NAME, f"missing {listed(missing, 6)}", fix))
    for size in sizes:
        if size.refused is not None:
            detail = f"skipped {size.name}: {size.refused}"
            fix = f"replace {workspace / size.name} with a regular file (the agent's commands can plant such files)"
            problems.append(warn(NAME, detail, fix))
        elif size.truncated:
            short = next(key for key, file in BOOTSTRAP_NAMES.items() if file == size.name)
            detail = f"{size.name} is {size.chars:,} chars, over the {cap:,} cap: the prompt gets it cut"
            fix = f"shorten it (`claw workspace edit {short}`) or raise {agent_key(agent_id, 'bootstrapMaxChars')}"
            problems.append(warn(NAME, detail, fix))
    # As `claw workspace show` counts it: each injected file up to its cap.
    total = sum(min(s.chars, s.cap) for s in sizes if s.cap)
    if total > total_cap:
        detail = f"bootstrap files total {total:,} chars, over the {total_cap:,} total cap: the last ones are cut"
        fix = f"shorten them, or raise {agent_key(agent_id, 'bootstrapTotalMaxChars')}"
        problems.append(warn(NAME, detail, fix))
    present = sum(1 for s in sizes if s.exists)
    return combine(NAME, problems, f"{workspace}: {present} files, {total:,} of {total_cap:,} chars injected")
