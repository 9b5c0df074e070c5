"""Skill discovery with 500 skills on disk.

Run from the repo root:  python -m bench.skills_discovery  [--skills 500] [--runs 20]

The skills are written to a temporary folder — a mix of plain ones and ones with gating
metadata (JSON and YAML), spread over the workspace, managed and extra locations — and
the bundled skills come on top. Measured:

  cold   discovery with the parse cache emptied before each run (a fresh gateway process)
  warm   discovery with the cache filled (every later turn: one scandir per location, a stat per skill)
  turn   warm discovery + gating + fitting the prompt list: what the skills prompt section does
         on each turn before comparing the session's snapshot fingerprint

Target (issue 5): cold discovery p50 under 100 ms.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.report import Target, finish, machine_line, median, spread
from claw.config import Config, ConfigFile
from claw.paths import Paths
from claw.skills.catalog import build_report, discover_for
from claw.skills.discovery import clear_cache
from claw.skills.prompt import candidates, fit

BODY = "# Steps\n" + "".join(f"{i}. Do step {i} carefully, with the read and exec tools.\n" for i in range(1, 40))
JSON_META = 'metadata: {"openclaw": {"requires": {"bins": ["sh"], "env": ["HOME"]}, "os": ["linux", "darwin"]}}\n'
YAML_META = "metadata:\n  claw:\n    requires:\n      anyBins: [python3, python]\n"


def write_skills(home: Path, count: int) -> tuple[Paths, Config, Path]:
    paths = Paths(home, home)
    workspace = home / "workspace"
    roots = [workspace / "skills", paths.skills_dir, home / "extra"]
    for i in range(count):
        folder = roots[i % len(roots)] / f"skill-{i:04d}"
        folder.mkdir(parents=True)
        meta = (JSON_META, YAML_META, "")[i % 3]
        head = (
            f"---\nname: skill-{i:04d}\ndescription: Skill number {i}, which does one useful thing well.\n{meta}---\n"
        )
        (folder / "SKILL.md").write_text(head + BODY, encoding="utf-8")
    raw = {"skills": {"extraDirs": [str(home / "extra")]}}
    return paths, Config(ConfigFile.model_validate(raw), path=paths.config_file), workspace


def measure(fn: Callable[[], object], runs: int, before: Callable[[], None] = lambda: None) -> list[float]:
    times = []
    for _ in range(runs):
        before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description="Skill discovery time with many skills on disk.")
    parser.add_argument("--skills", type=int, default=500)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp:
        paths, config, workspace = write_skills(Path(tmp), args.skills)
        found = discover_for(paths, config, workspace)
        assert len(found.skills) >= args.skills and not found.invalid, found.invalid[:3]
        limits = config.skills.limits

        def discovery() -> object:
            return discover_for(paths, config, workspace)

        def turn() -> object:
            report = build_report(paths, config, "main", workspace)
            return fit(
                candidates(report.eligible),
                max_count=limits.max_skills_in_prompt,
                max_chars=limits.max_skills_prompt_chars,
            )

        cold = measure(discovery, args.runs, clear_cache)
        warm = measure(discovery, args.runs)
        per_turn = measure(turn, args.runs)
    print(f"{len(found.skills)} skills ({args.skills} written + bundled), {args.runs} runs each")
    print(spread("cold discovery (parse cache empty)", cold))
    print(spread("warm discovery (parse cache filled)", warm))
    print(spread("per turn: discovery + gating + prompt fit", per_turn))
    return finish([Target(f"skills_discovery_cold_p50_{args.skills}", median(cold) * 1000, 100, "ms")])


if __name__ == "__main__":
    sys.exit(main())
