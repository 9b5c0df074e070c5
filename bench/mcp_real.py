"""The reference MCP servers as users run them: how long each takes to start, and what they cost a turn.

Run from the repo root:  python -m bench.mcp_real  [--runs 5]

Installs (or reuses) the servers with scripts/install-mcp-servers.sh, then in a temporary state folder,
under the default sandbox (bwrap where it works):

- `start`: `claw mcp test NAME` twice per server, added as its README says; `startSeconds` of each (spawn
  to the first tool listing). The first start of an npx server in a fresh npm cache also installs it; here
  the cache is the installer's, so first and second differ by what the OS had cached, and by npx's check;
- `one-shot`: a cold `claw agent -m hello` against an instant scripted model, with 0, 1 and 5 servers
  configured (their tool listings kept from `claw mcp test`, as after any first use). Target (issue 34):
  with 5 servers, at most 0.2 s more CPU (median) than with none — a turn starts no server it does not
  call. CPU, not wall: on a shared machine the wall is mostly the load (both are printed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.one_shot import MODEL, claw_env, one_turn
from bench.process import ProcessSample, checked
from bench.report import Target, finish, machine_line, median, spread
from tests.support.model_server import ScriptedModelServer

REPO = Path(__file__).resolve().parents[1]


def install() -> tuple[Path, dict[str, str]]:
    done = subprocess.run(["bash", str(REPO / "scripts" / "install-mcp-servers.sh")], capture_output=True,
                          text=True, timeout=1200, check=True)  # fmt: skip
    exports = dict(line.removeprefix("export ").split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    return Path(exports["CLAW_MCP"]) / "venv" / "bin", {
        "npm_config_cache": exports["npm_config_cache"],
        "npm_config_offline": "true",
    }


def servers(venv_bin: Path, scratch: Path) -> dict[str, list[str]]:
    """Each server's command line, as its README gives it."""
    files = scratch / "files"
    files.mkdir(exist_ok=True)
    repo = scratch / "repo"
    if not repo.exists():
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return {
        "filesystem": ["npx", "-y", "@modelcontextprotocol/server-filesystem", str(files)],
        "memory": ["npx", "-y", "@modelcontextprotocol/server-memory"],
        "everything": ["npx", "-y", "@modelcontextprotocol/server-everything"],
        "time": [str(venv_bin / "mcp-server-time")],
        "git": [str(venv_bin / "mcp-server-git"), "--repository", str(repo)],
    }


def start_seconds(env: dict[str, str], name: str) -> float:
    sample = checked([sys.executable, "-m", "claw", "mcp", "test", name, "--json"], env, timeout=180)
    report = json.loads(sample.stdout)
    if report["state"] != "up":
        raise RuntimeError(f"{name} did not start: {report['error']}")
    return float(report["startSeconds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="timed one-shot turns per configuration (default 5)")
    args = parser.parse_args()
    venv_bin, extra = install()
    print(machine_line())
    with (
        tempfile.TemporaryDirectory(prefix="claw-bench-mcp-") as scratch,
        ScriptedModelServer(models=(MODEL,), instant=True) as server,
    ):
        commands = servers(venv_bin, Path(scratch))
        homes = {n: Path(scratch) / f"home-{n}" for n in (0, 1, 5)}
        envs = {}
        for count, home in homes.items():
            home.mkdir()
            env = {**claw_env(str(home), server), **extra}
            checked([sys.executable, "-m", "claw", "init"], env)
            for name in list(commands)[:count] if count != 1 else ["time"]:
                checked([sys.executable, "-m", "claw", "mcp", "add", name, "--", *commands[name]], env)
            envs[count] = env
        print("start (claw mcp test NAME, spawn to first tool listing, under bwrap):")
        for name in commands:
            first, second = start_seconds(envs[5], name), start_seconds(envs[5], name)
            print(f"  {name:<11} first {first:6.2f} s   second {second:6.2f} s")
        start_seconds(envs[1], "time")  # its listing kept, as after any first use
        for env in envs.values():
            one_turn(env)  # warm-up
        runs: dict[int, list[ProcessSample]] = {n: [] for n in envs}
        for _ in range(args.runs):  # interleaved, so that a slow spell of the machine hits all alike
            for count, env in envs.items():
                runs[count].append(one_turn(env))
        print(machine_line())
        for count, samples in runs.items():
            print(spread(f"claw agent -m hello, {count} MCP servers", [s.wall for s in samples], "s"))
            print(f"{'':<44} CPU median {median([s.cpu for s in samples]):.3f} s")
    extra_wall = median([s.wall for s in runs[5]]) - median([s.wall for s in runs[0]])
    extra_cpu = median([s.cpu for s in runs[5]]) - median([s.cpu for s in runs[0]])
    print(
        f"5 servers less none: wall {extra_wall:+.2f} s (the machine's load decides most of it), CPU {extra_cpu:+.3f} s"
    )
    return finish([Target("one-shot CPU with 5 MCP servers less with none (median)", extra_cpu, 0.2, "s")])


if __name__ == "__main__":
    sys.exit(main())
