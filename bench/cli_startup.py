"""`claw --help` start-up: wall time and what it imports.

Run from the repo root:  python -m bench.cli_startup  [--runs 20]

Times `python -m claw --help` (and the installed `claw` script when it is on PATH) over
`--runs` runs and prints the median; `python -c pass` is timed too, as the floor that no
Python CLI can go under on this machine. Then one `python -X importtime -m claw --help`
lists the imports that cost most and checks that neither textual nor openai is among them.

Then the listing and validating commands (issue 33), each `--runs` times in a home made by `claw init`
with no gateway running: `sessions ls`, `skills ls`, `usage`, `automations ls`, `automations add` refusing
a bad cron expression (exit 2) and `config get`; the median CPU (user + system) of each process, and
whether it imported the gateway (claw.gateway.gateway) or openai.

Targets: median under 0.15 s (issue 13; issue 2 asked for 0.3 s); textual and openai not imported;
each listing or validating command at most 0.3 s of CPU (issue 33), none importing the gateway or openai.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile

from bench import importtime
from bench.process import checked, measure, user_env
from bench.report import Target, finish, machine_line, median, spread

FORBIDDEN = ("textual", "openai")
ALSO_WATCHED = ("httpx", "httpx2", "httpcore", "httpcore2", "pydantic", "aiohttp", "rich", "asyncio", "sqlite3")


def clean_env(home: str) -> dict[str, str]:
    env = user_env()
    env["CLAW_HOME"] = home
    return env


def timed_runs(cmd: list[str], env: dict[str, str], runs: int) -> list[float]:
    checked(cmd, env)  # warm the OS file cache and the .pyc files once
    return [checked(cmd, env).wall for _ in range(runs)]


COMMANDS: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("sessions ls", ("sessions", "ls"), 0),
    ("skills ls", ("skills", "ls"), 0),
    ("usage", ("usage",), 0),
    ("automations ls", ("automations", "ls"), 0),
    ("automations add (bad cron)", ("automations", "add", "61 9 * * *", "-m", "never"), 2),
    ("config get", ("config", "get", "agents.defaults"), 0),
)
"""Name, arguments, the exit code expected."""
GATEWAY = ("claw.gateway.gateway", "openai")


def command_cpu(env: dict[str, str], runs: int, targets: list[Target]) -> None:
    """Each of `COMMANDS` `runs` times (after one untimed run): median CPU, and what its process imported."""
    checked([sys.executable, "-m", "claw", "init"], env)
    print(f"listing and validating commands ({runs} runs each, no gateway running): CPU user+sys, wall")
    for name, args, code in COMMANDS:
        argv = [sys.executable, "-m", "claw", *args]
        samples = [measure(argv, env) for _ in range(runs + 1)][1:]
        if any(sample.returncode != code for sample in samples):
            bad = next(sample for sample in samples if sample.returncode != code)
            raise RuntimeError(f"claw {' '.join(args)} exited {bad.returncode}: {bad.stderr[-500:]}")
        cpu, wall = median([s.cpu for s in samples]), median([s.wall for s in samples])
        imported = importtime.modules(importtime.run(argv, env, expect=code))
        heavy = [module for module in GATEWAY if module in imported]
        print(f"  {name:<28} CPU p50 {cpu:.3f} s (min {min(s.cpu for s in samples):.3f})  wall p50 {wall:.3f} s"
              f"  {len(imported)} modules{'; imports ' + ', '.join(heavy) if heavy else ''}")  # fmt: skip
        targets.append(Target(f"claw {name} median CPU", cpu, 0.3, "s"))
        targets.append(Target(f"claw {name} imports of the gateway/openai", len(heavy), 1, "modules"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each command (default 20)")
    args = parser.parse_args()
    print(machine_line())
    targets: list[Target] = []
    with tempfile.TemporaryDirectory(prefix="claw-bench-") as home:
        env = clean_env(home)
        floor = timed_runs([sys.executable, "-c", "pass"], env, args.runs)
        print(spread("python -c pass (interpreter floor)", floor, "s"))
        module = timed_runs([sys.executable, "-m", "claw", "--help"], env, args.runs)
        print(spread("python -m claw --help", module, "s"))
        targets.append(Target("claw --help median wall (python -m claw)", median(module), 0.15, "s"))
        script = shutil.which("claw")
        if script:
            installed = timed_runs([script, "--help"], env, args.runs)
            print(spread(f"{script} --help", installed, "s"))
            targets.append(Target("claw --help median wall (installed script)", median(installed), 0.15, "s"))
        else:
            print("claw script: not on PATH (`pip install -e .` puts it there); timed `python -m claw` only")

        rows = importtime.run([sys.executable, "-m", "claw", "--help"], env)
        command_cpu(env, args.runs, targets)
    print(machine_line())
    print()
    total = importtime.total_ms(rows)
    print(f"python -X importtime -m claw --help: {len(rows)} modules, {total:.0f} ms of imports (inflated by -X)")
    print("import time by package (self time of its modules):")
    for package, spent in importtime.by_package(rows)[:12]:
        print(f"  {spent:8.1f} ms  {package}")
    print("heaviest imports (cumulative ≥ 5 ms, 3 levels):")
    for line in importtime.tree_lines(rows, max_depth=2, min_ms=5.0):
        print(" ", line)
    imported = {row.package for row in rows}
    print("watched packages imported:", ", ".join(p for p in ALSO_WATCHED if p in imported) or "none")
    bad = importtime.offenders(rows, FORBIDDEN)
    print("forbidden (textual, openai):", ", ".join(bad[:10]) + (" …" if len(bad) > 10 else "") if bad else "none")
    targets.append(Target("claw --help imports of textual/openai", len(bad), 1, "modules"))
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
