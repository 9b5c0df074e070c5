"""What a turn and a listing cost as an agent's session index grows (issue 41).

Run from the repo root:  python -m bench.session_scale  [--sizes 1,1000,10000,50000] [--runs 3] [--repo PATH]

For each size N, a fresh CLAW_HOME gets an index of N sessions, written as the `sessions.json` an
existing install has (each entry with a skills snapshot the size of a real one, ~1.95 KB: the 2.3 KB
entries the issue measured); a claw that keeps its index elsewhere imports it on the first open, which
the untimed warm-up turn does. Then `claw agent -s NEW -m hi` runs `--runs` times, each in a session
that does not exist yet, against `ScriptedModelServer(instant=True)`: CPU time and peak RSS per process
(bench/process.py). At the largest size, `claw sessions ls --json` is timed too (wall, CPU, peak RSS),
and how soon its first row arrives.

`--repo PATH` runs the claw found at PATH (a checkout, put first on PYTHONPATH) instead of this one:
that is how the "before" numbers in bench/README-sessions.md were taken, from `git archive` of the
commit before the index moved to SQLite.

Targets (issue 41): the turn's median CPU at the largest size at most 1.2x that at the smallest
(flat), and `sessions ls --json` under 1 s at the largest size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.one_shot import claw_env
from bench.process import ProcessSample, checked
from bench.report import Target, finish, machine_line, median
from tests.support.model_server import ScriptedModelServer

MODEL = "test-model"
SKILLS = 5  # the bundled skills


def snapshot(i: int) -> dict[str, object]:
    """A skills snapshot shaped like the one a turn records (`claw.skills.snapshot`), about 1.95 KB."""
    skills = [
        {
            "name": f"skill-{n}",
            "description": f"What skill {n} is for, when to use it and when not to, in a sentence or two. " * 4,
            "location": f"/home/user/.local/share/claw/skills/skill-{n}/SKILL.md",
        }
        for n in range(SKILLS)
    ]
    return {
        "fingerprint": f"{i % 7:032x}",
        "version": 1,
        "takenAt": "2026-01-01T00:00:00.000000Z",
        "total": SKILLS,
        "descriptions": "full",
        "skills": skills,
    }


def write_index(sessions_dir: Path, count: int) -> int:
    """`sessions.json` with `count` sessions; its size in bytes."""
    sessions_dir.mkdir(parents=True, exist_ok=True)
    index = {}
    for i in range(count):
        stamp = f"2026-01-{1 + i % 28:02d}T{i % 24:02d}:00:00.{i % 1_000_000:06d}Z"
        index[f"agent:main:telegram:group:{i}"] = {
            "sessionKey": f"agent:main:telegram:group:{i}",
            "sessionId": f"{i:032x}",
            "createdAt": stamp,
            "updatedAt": stamp,
            "messageCount": 2,
            "inputTokens": 120,
            "outputTokens": 30,
            "modelOverride": None,
            "lastPreview": f"the last thing said in group {i}",
            "chatType": "group",
            "channel": "telegram",
            "displayName": None,
            "extra": {"skillsSnapshot": snapshot(i)},
        }
    raw = json.dumps(index, indent=2).encode()
    (sessions_dir / "sessions.json").write_bytes(raw)
    os.chmod(sessions_dir / "sessions.json", 0o600)
    return len(raw)


def turn(env: dict[str, str], key: str) -> ProcessSample:
    sample = checked([sys.executable, "-m", "claw", "agent", "-s", key, "-m", "hi"], env, timeout=1800)
    if sample.stdout.strip() != "ok":
        raise RuntimeError(f"unexpected reply {sample.stdout!r} (stderr: {sample.stderr[-500:]!r})")
    return sample


def first_row_seconds(env: dict[str, str]) -> float:
    """How long `sessions ls --json` takes to print its first row (the listing streams when this is small)."""
    started = time.perf_counter()
    argv = [sys.executable, "-m", "claw", "sessions", "ls", "--json"]
    with subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
        assert proc.stdout is not None
        seen = b""
        while b'"key"' not in seen:
            chunk = proc.stdout.read1(65536)  # type: ignore[attr-defined]
            if not chunk:
                break
            seen += chunk
        first = time.perf_counter() - started
        proc.stdout.read()
    return first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,1000,10000,50000", help="index sizes (default 1,1000,10000,50000)")
    parser.add_argument("--runs", type=int, default=3, help="timed turns per size (default 3)")
    parser.add_argument("--repo", type=Path, help="run the claw checked out at this path instead of this one")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    if args.repo:  # `python -m claw` looks in its working directory first, so run it from that checkout
        os.chdir(args.repo)
    print(machine_line())
    print(f"claw from {args.repo or 'this checkout'}")
    cpu_by_size: dict[int, float] = {}
    targets: list[Target] = []
    with ScriptedModelServer(models=(MODEL,), instant=True) as server:
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="claw-bench-scale-") as home:
                env = claw_env(home, server)
                env["CLAW_MODEL"] = MODEL
                if args.repo:
                    env["PYTHONPATH"] = str(args.repo.resolve())
                written = write_index(Path(home) / "agents" / "main" / "sessions", size)
                warm = turn(env, "agent:main:warm-up")  # and the import into a new index format, if any
                runs = [turn(env, f"agent:main:new-{n}") for n in range(args.runs)]
                cpu, wall = median([s.cpu for s in runs]), median([s.wall for s in runs])
                each = ", ".join(f"{s.cpu:.2f}" for s in runs)
                cpu_by_size[size] = cpu
                print(
                    f"{size:>6} sessions ({written / 1e6:7.1f} MB sessions.json): turn CPU median {cpu:6.2f} s "
                    f"(runs {each}), wall median {wall:6.2f} s, "
                    f"peak RSS max {max(s.max_rss_mb for s in runs):6.1f} MB; warm-up CPU {warm.cpu:.2f} s"
                )
                if size == max(sizes):
                    listing = checked([sys.executable, "-m", "claw", "sessions", "ls", "--json"], env, timeout=1800)
                    rows = len(json.loads(listing.stdout))
                    first = first_row_seconds(env)
                    print(
                        f"{'':>6} sessions ls --json: {rows} rows, wall {listing.wall:.2f} s, CPU {listing.cpu:.2f} s, "
                        f"peak RSS {listing.max_rss_mb:.1f} MB, first row after {first:.2f} s"
                    )
                    targets.append(Target(f"sessions_ls_json_{size}", listing.wall, 1.0, "s"))
    smallest, largest = min(sizes), max(sizes)
    if largest != smallest:
        ratio = cpu_by_size[largest] / cpu_by_size[smallest]
        targets.append(Target(f"session_turn_cpu_{largest}_vs_{smallest}", ratio, 1.2, "x"))
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
