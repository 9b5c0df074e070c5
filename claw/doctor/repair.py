"""`claw doctor --fix`: the repairs that are always safe, each reported in one line.

Only what the checks report is touched: the modes of state folders and files, temp files
left by interrupted atomic writes, and workspace files missing next to the template (created,
never overwritten). Nothing else the user wrote is changed.
"""

from __future__ import annotations

from pathlib import Path

from claw.config import Config
from claw.doctor.state import loose_dirs, loose_files, stale_temps, temp_owner
from claw.doctor.workspace import missing_bootstrap
from claw.paths import Paths, bundled_dir
from claw.store.atomic import STALE_TEMP_SECONDS, remove_stale_temps
from claw.workspace import seed_workspace, workspace_dir


def fix_modes(paths: Paths) -> list[str]:
    done = []
    for loose in [*loose_dirs(paths), *loose_files(paths)]:
        loose.path.chmod(loose.wanted)
        done.append(f"made {loose.path} {loose.wanted:04o} (was {loose.mode:04o})")
    return done


def fix_temps(roots: list[Path]) -> list[str]:
    done = []
    for target in dict.fromkeys(temp_owner(temp) for temp in stale_temps(roots)):
        removed = remove_stale_temps(target, STALE_TEMP_SECONDS)
        if removed:
            what = "file" if removed == 1 else "files"
            done.append(f"deleted {removed} leftover temp {what} of {target}")
    return done


def fix_workspace(paths: Paths, config: Config, agent_id: str) -> list[str]:
    """Create the bootstrap files missing from an existing workspace, from the template `claw init` uses."""
    workspace = workspace_dir(paths, config, agent_id)
    template = bundled_dir("workspace-template")
    if not workspace.is_dir() or not missing_bootstrap(workspace, template):
        return []
    created = [p for p in seed_workspace(template, workspace) if p.is_file()]
    names = ", ".join(str(p.relative_to(workspace)) for p in created)
    return [f"created {names} in {workspace} from the template"] if created else []
