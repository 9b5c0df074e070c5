"""A whole cold `claw agent -m "hello"` process against an instant model.

Run from the repo root:  python -m bench.one_shot  [--runs 10] [--profile] [--nanobot PATH]

No gateway is running, so each process starts one in-process, runs the turn through the real
openai client against `ScriptedModelServer(instant=True)` (tests/support, in this process) and
exits. Measured per process: wall time (fork to reaped), CPU time and peak RSS (through
/usr/bin/time; bench/process.py says why not wait4). For scale, `python -c pass` and
`python -c "import openai"` are measured the same way. Then one `python -X importtime` run
says which imports dominate, and with `--profile` one pyinstrument run (if installed; bench-only:
`pip install pyinstrument`) says where the rest goes.

Targets: under 2 s wall (median) and under 80 MB peak RSS (worst run) (issue 2, part 10); claw's own
share, the median wall less that of `python -c "import openai"` measured in the same run, under 0.2 s
(issue 13). With `--nanobot PATH` (the `nanobot` script of a nanobot-ai install, e.g. a separate venv:
`python -m venv /tmp/nb && /tmp/nb/bin/pip install nanobot-ai`), nanobot's own cold one-shot turn is
measured against the same model server, in a temporary HOME set up by `nanobot onboard`; target: claw's
median at most half of nanobot's.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

from bench import importtime
from bench.process import ProcessSample, checked, user_env
from bench.report import Target, finish, machine_line, median, spread
from tests.support.model_server import ScriptedModelServer

MODEL = "test-model"


def claw_env(home: str, server: ScriptedModelServer) -> dict[str, str]:
    env = user_env()
    env.update(CLAW_HOME=home, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench", CLAW_MODEL=MODEL)
    env["NO_PROXY"] = ",".join(filter(None, [env.get("NO_PROXY"), "127.0.0.1", "localhost"]))
    return env


def show(name: str, samples: list[ProcessSample]) -> None:
    print(spread(name, [s.wall for s in samples], "s"))
    rss = [s.max_rss_mb for s in samples]
    cpu = [s.cpu for s in samples]
    print(f"{'':<44} peak RSS median {median(rss):.1f} MB, max {max(rss):.1f} MB; CPU median {median(cpu):.3f} s")
    if not all(s.rss_exact for s in samples):
        print(f"{'':<44} (no /usr/bin/time: RSS from wait4, an upper bound; see bench/process.py)")


def one_turn(env: dict[str, str]) -> ProcessSample:
    sample = checked([sys.executable, "-m", "claw", "agent", "-m", "hello"], env)
    if sample.stdout.strip() != "ok":
        raise RuntimeError(f"unexpected reply {sample.stdout!r} (stderr: {sample.stderr[-500:]!r})")
    return sample


def nanobot_env(home: str, nanobot: str, server: ScriptedModelServer) -> dict[str, str]:
    """A HOME with a nanobot config whose one provider is the scripted model server."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "NANOBOT_"))}
    env.update(HOME=home, NO_PROXY="127.0.0.1,localhost")
    checked([nanobot, "onboard"], env, timeout=120)
    config_file = Path(home) / ".nanobot" / "config.json"
    config = json.loads(config_file.read_text())
    defaults = config["agents"]["defaults"]
    defaults.update(model=MODEL, provider="custom")
    defaults.get("dream", {})["enabled"] = False  # no background model calls beside the one turn
    config["providers"]["custom"].update(apiBase=server.base_url, apiKey="bench")
    config_file.write_text(json.dumps(config, indent=1))
    return env


def nanobot_turn(nanobot: str, env: dict[str, str]) -> ProcessSample:
    sample = checked([nanobot, "agent", "-m", "hello", "--no-markdown"], env)
    if "ok" not in sample.stdout.split():
        raise RuntimeError(f"unexpected nanobot reply {sample.stdout!r} (stderr: {sample.stderr[-500:]!r})")
    return sample


def breakdown(env: dict[str, str], runs: list[ProcessSample]) -> None:
    """Which imports dominate a one-shot turn, and how much of the wall is not imports."""
    argv = [sys.executable, "-m", "claw", "agent", "-m", "hello"]
    rows = importtime.run(argv, env)
    total = importtime.total_ms(rows)
    print(f"python -X importtime -m claw agent -m hello: {len(rows)} modules, {total:.0f} ms of imports")
    print(f"  (inflated by -X importtime; median wall without it {median([s.wall for s in runs]) * 1000:.0f} ms)")
    print("import time by package (self time of its modules):")
    for package, spent in importtime.by_package(rows)[:14]:
        print(f"  {spent:8.1f} ms  {package}")
    print("heaviest imports (cumulative ≥ 15 ms, 2 levels):")
    for line in importtime.tree_lines(rows, max_depth=1, min_ms=15.0):
        print(" ", line)


def profile(env: dict[str, str], out: Path) -> None:
    if importlib.util.find_spec("pyinstrument") is None:
        print("--profile: pyinstrument is not installed (bench-only: pip install pyinstrument)")
        return
    argv = ["-m", "claw", "agent", "-m", "hello"]
    checked([sys.executable, "-m", "pyinstrument", "-r", "text", "-o", str(out), *argv], env)
    lines = [line for line in out.read_text().splitlines() if "<frozen importlib" not in line]
    print(f"pyinstrument profile (full report: {out}):")
    for line in lines[:60]:
        print(" ", line[:160])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="timed `claw agent -m` processes (default 10)")
    parser.add_argument("--profile", action="store_true", help="also profile one run with pyinstrument")
    parser.add_argument(
        "--nanobot", metavar="PATH", help="also time nanobot's cold one-shot turn (its `nanobot` script)"
    )
    args = parser.parse_args()
    print(machine_line())
    with (
        tempfile.TemporaryDirectory(prefix="claw-bench-") as home,
        ScriptedModelServer(models=(MODEL,), instant=True) as server,
    ):
        env = claw_env(home, server)
        checked([sys.executable, "-m", "claw", "init"], env)
        one_turn(env)  # warm the OS file cache and the .pyc files once
        checked([sys.executable, "-c", "import openai"], env)
        nanobot_runs: list[ProcessSample] = []
        runs, openai_only = [], []
        with tempfile.TemporaryDirectory(prefix="claw-bench-nanobot-") as nanobot_home:
            if args.nanobot:
                nb_env = nanobot_env(nanobot_home, args.nanobot, server)
                nanobot_turn(args.nanobot, nb_env)  # its warm-up
            for _ in range(args.runs):  # interleaved, so that a slow spell of the machine hits all alike
                runs.append(one_turn(env))
                openai_only.append(checked([sys.executable, "-c", "import openai"], env))
                if args.nanobot:
                    nanobot_runs.append(nanobot_turn(args.nanobot, nb_env))
        floor = [checked([sys.executable, "-c", "pass"], env) for _ in range(5)]
        print(machine_line())
        show("claw agent -m hello (cold, no gateway)", runs)
        show("for scale: python -c pass", floor)
        show("for scale: python -c 'import openai'", openai_only)
        if nanobot_runs:
            show("nanobot agent -m hello (cold)", nanobot_runs)
        print()
        breakdown(env, runs)
        if args.profile:
            print()
            profile(env, Path(tempfile.gettempdir()) / "claw-one-shot.pyinstrument.txt")
    claw_wall = median([s.wall for s in runs])
    targets = [
        Target("one-shot claw agent -m median wall", claw_wall, 2.0, "s"),
        Target("one-shot claw agent -m peak RSS (worst run)", max(s.max_rss_mb for s in runs), 80.0, "MB"),
        Target(
            "one-shot claw's own share (wall less `import openai`)",
            claw_wall - median([s.wall for s in openai_only]),
            0.2,
            "s",
        ),
    ]
    cpu_share = median([s.cpu for s in runs]) - median([s.cpu for s in openai_only])
    print(f"claw's own share in CPU time (less sensitive to a busy machine than the wall): {cpu_share:.3f} s")
    if nanobot_runs:
        ratio = claw_wall / median([s.wall for s in nanobot_runs])
        targets.append(Target("one-shot claw / nanobot median wall", ratio, 0.5, "×"))
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
