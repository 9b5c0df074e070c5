"""claw beside its peers, in one alternating run: `--help` and a cold one-shot turn (issue 41).

Run from the repo root:  python -m bench.peers  [--runs 5] [--help-runs 10] [--only nanobot,hermes,openclaw]

The peers are installed first (cached; a second run reuses them): nanobot (PyPI nanobot-ai) and hermes
(PyPI hermes-agent) by scripts/install-peers.sh, each in its own venv, and OpenClaw (npm) by
scripts/install-openclaw.sh. Every CLI runs in a temporary HOME of its own that points its one model at the
same scripted model server (tests/support/model_server.py, `instant=True`, OpenAI-compatible on 127.0.0.1),
which answers `ok` at once, so a turn's time is the CLI's own.

Measured per process (bench/process.py: fork to reaped, CPU user+sys): `<cli> --help`, then a cold one-shot
turn, `claw agent -m hi` / `nanobot agent -m hi` / `hermes -z hi` / `openclaw agent --local -m
hi`, each the first and only turn of a fresh session, no gateway or daemon running. The CLIs take turns in
every round (claw, nanobot, hermes, openclaw, then again), so that a slow spell of a loaded machine hits all
alike; compare the ratios, not the seconds. For claw's own share, `python -c "import openai"` is timed in the
same rounds.

Targets (issue 41): claw's `--help` at most 0.5 × the fastest peer's; claw's cold turn at most 0.35 ×
nanobot's; claw's own share of the cold turn (its CPU less that of `import openai`) at most 0.2 × the turn.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.process import ProcessSample, checked, user_env
from bench.report import Target, finish, machine_line, median
from tests.support.model_server import ScriptedModelServer

REPO = Path(__file__).resolve().parents[1]
MODEL = "test-model"
MESSAGE = "hi"
PEERS = ("nanobot", "hermes", "openclaw")


@dataclass
class Cli:
    """One CLI under test: how to ask it for help and for one cold turn, and what it measured."""

    name: str
    version: str
    help_argv: list[str]
    turn_argv: list[str]
    env: dict[str, str]
    replied: Callable[[str], bool] = lambda out: "ok" in out.split()
    helps: list[ProcessSample] = field(default_factory=list)
    turns: list[ProcessSample] = field(default_factory=list)

    def help(self) -> None:
        self.helps.append(checked(self.help_argv, self.env, timeout=120))

    def turn(self) -> None:
        sample = checked(self.turn_argv, self.env, timeout=300)
        if not self.replied(sample.stdout):
            reply, errors = sample.stdout[-500:], sample.stderr[-800:]
            raise RuntimeError(f"{self.name}: unexpected reply {reply!r} (stderr {errors!r})")
        self.turns.append(sample)


def _exports(script: str, *args: str) -> dict[str, str]:
    """Run an install script (pinned, cached) and return the variables it prints as `export K=V …`."""
    done = subprocess.run(["bash", str(REPO / "scripts" / script), *args], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"scripts/{script} failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    found: dict[str, str] = {}
    for line in done.stdout.splitlines():
        for pair in line.removeprefix("export ").split():
            name, _, value = pair.partition("=")
            found[name] = value.replace("$PATH", os.environ.get("PATH", ""))
    return found


def _peer_env(home: Path, drop: tuple[str, ...]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CLAW_", *drop))}
    env.update(HOME=str(home), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    env.pop("XDG_CONFIG_HOME", None)
    env.pop("XDG_DATA_HOME", None)
    return env


def claw_cli(home: Path, server: ScriptedModelServer) -> Cli:
    env = user_env()
    env.update(CLAW_HOME=str(home), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench", CLAW_MODEL=MODEL)
    env["NO_PROXY"] = ",".join(filter(None, [env.get("NO_PROXY"), "127.0.0.1", "localhost"]))
    script = shutil.which("claw", path=str(Path(sys.executable).parent))  # the installed script, like the peers'
    claw = [script] if script else [sys.executable, "-m", "claw"]
    checked([*claw, "init"], env)
    version = checked([*claw, "--version"], env).stdout.strip().removeprefix("claw ")
    return Cli("claw", version, [*claw, "--help"], [*claw, "agent", "-m", MESSAGE], env)


def nanobot_cli(home: Path, server: ScriptedModelServer, exe: str, version: str) -> Cli:
    """nanobot's config (written by `nanobot onboard`) with its `custom` provider at the model server."""
    env = _peer_env(home, ("NANOBOT_",))
    checked([exe, "onboard"], env, timeout=300)
    config_file = home / ".nanobot" / "config.json"
    config = json.loads(config_file.read_text())
    defaults = config["agents"]["defaults"]
    defaults.update(model=MODEL, provider="custom")
    defaults.get("dream", {})["enabled"] = False  # no background model calls beside the one turn
    config["providers"]["custom"].update(apiBase=server.base_url, apiKey="bench")
    config_file.write_text(json.dumps(config, indent=1))
    return Cli("nanobot", version, [exe, "--help"], [exe, "agent", "-m", MESSAGE, "--no-markdown"], env)


HERMES_CONFIG = """\
model:
  default: "%(model)s"
  provider: "custom"
  base_url: "%(base)s"
  api_key: "bench"
"""


def hermes_cli(home: Path, server: ScriptedModelServer, exe: str, version: str) -> Cli:
    """hermes's config.yaml in HERMES_HOME with its model at the model server (provider `custom`)."""
    env = _peer_env(home, ("HERMES_",))
    hermes_home = home / ".hermes"
    hermes_home.mkdir(parents=True)
    (hermes_home / "config.yaml").write_text(HERMES_CONFIG % {"model": MODEL, "base": server.base_url})
    env["HERMES_HOME"] = str(hermes_home)
    return Cli("hermes", version, [exe, "--help"], [exe, "-z", MESSAGE], env)


OPENCLAW_CONFIG = """{
  agents: { defaults: { model: { primary: "scripted/%(model)s" } } },
  models: { mode: "merge", providers: { scripted: { baseUrl: "%(base)s", apiKey: "bench", api: "openai-completions",
    models: [{ id: "%(model)s", name: "Scripted", reasoning: false, input: ["text"], contextWindow: 32000,
               maxTokens: 4096 }] } } },
}
"""


def openclaw_cli(home: Path, server: ScriptedModelServer, exports: dict[str, str]) -> Cli:
    """OpenClaw's embedded agent (`--local`: no gateway) with a provider at the model server."""
    env = _peer_env(home, ("OPENCLAW_",))
    state = home / ".openclaw"
    state.mkdir(parents=True)
    (state / "openclaw.json").write_text(OPENCLAW_CONFIG % {"model": MODEL, "base": server.base_url})
    env.update(PATH=exports["PATH"], OPENCLAW_STATE_DIR=str(state))
    exe = shutil.which("openclaw", path=exports["PATH"])
    if not exe:
        raise SystemExit("scripts/install-openclaw.sh put no openclaw on PATH")
    version = checked([exe, "--version"], env, timeout=120).stdout.strip().splitlines()[-1]
    return Cli("openclaw", version, [exe, "--help"], [exe, "agent", "--local", "--agent", "main", "-m", MESSAGE], env)


def show(cli: Cli) -> None:
    for what, samples in (("--help", cli.helps), ("cold turn", cli.turns)):
        walls, cpus = [s.wall for s in samples], [s.cpu for s in samples]
        print(f"  {cli.name:<9} {what:<10} wall p50 {median(walls):7.3f} s (min {min(walls):.3f}, max {max(walls):.3f})"
              f"  CPU p50 {median(cpus):6.3f} s  peak RSS p50 {median([s.max_rss_mb for s in samples]):6.1f} MB"
              f"  (n={len(samples)})")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="cold turns of each CLI (default 5)")
    parser.add_argument("--help-runs", type=int, default=10, help="`--help` runs of each CLI (default 10)")
    parser.add_argument("--only", default=",".join(PEERS), help=f"peers to run, comma-separated (default {PEERS})")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    if unknown := set(chosen) - set(PEERS):
        parser.error(f"unknown peer(s): {', '.join(sorted(unknown))} (known: {', '.join(PEERS)})")
    print(machine_line())
    peers_env = _exports("install-peers.sh") if {"nanobot", "hermes"} & set(chosen) else {}
    openclaw_env = _exports("install-openclaw.sh") if "openclaw" in chosen else {}
    with (
        tempfile.TemporaryDirectory(prefix="claw-bench-peers-") as tmp,
        ScriptedModelServer(models=(MODEL,), instant=True) as server,
    ):
        homes = Path(tmp)
        clis = [claw_cli(homes / "claw", server)]
        for name in chosen:
            (homes / name).mkdir()
            if name == "nanobot":
                clis.append(nanobot_cli(homes / name, server, peers_env["NANOBOT"], peers_env["NANOBOT_VERSION"]))
            elif name == "hermes":
                clis.append(hermes_cli(homes / name, server, peers_env["HERMES"], peers_env["HERMES_VERSION"]))
            else:
                clis.append(openclaw_cli(homes / name, server, openclaw_env))
        for cli in clis:  # warm-ups: the OS file cache, .pyc files, each CLI's first-run set-up
            cli.help()
            cli.turn()
            cli.helps.clear()
            cli.turns.clear()
        openai_env = clis[0].env
        checked([sys.executable, "-c", "import openai"], openai_env)
        openai_only: list[ProcessSample] = []
        for _ in range(args.help_runs):
            for cli in clis:
                cli.help()
        for _ in range(args.runs):
            for cli in clis:
                cli.turn()
            openai_only.append(checked([sys.executable, "-c", "import openai"], openai_env))
    print(machine_line())
    print("versions: " + ", ".join(f"{cli.name} {cli.version}" for cli in clis))
    for cli in clis:
        show(cli)
    claw, peers = clis[0], clis[1:]
    help_wall = median([s.wall for s in claw.helps])
    turn_wall = median([s.wall for s in claw.turns])
    help_cpu = median([s.cpu for s in claw.helps])
    for peer in peers:
        print(f"  claw / {peer.name}: --help {help_wall / median([s.wall for s in peer.helps]):.2f} × "
              f"(CPU {help_cpu / median([s.cpu for s in peer.helps]):.2f} ×), cold turn "
              f"{turn_wall / median([s.wall for s in peer.turns]):.2f} × "
              f"(CPU {median([s.cpu for s in claw.turns]) / median([s.cpu for s in peer.turns]):.2f} ×)")  # fmt: skip
    turn_cpu = median([s.cpu for s in claw.turns])
    own = turn_cpu - median([s.cpu for s in openai_only])
    print(f"  claw's own share of its cold turn: {own:.3f} s CPU of {turn_cpu:.3f} s (less `import openai`)")
    targets = [Target("peers: claw cold turn's own share (CPU less import openai) / its CPU", own / turn_cpu, 0.2, "×")]
    if peers:
        fastest = min(peers, key=lambda peer: median([s.wall for s in peer.helps]))
        ratio = help_wall / median([s.wall for s in fastest.helps])
        targets.append(Target(f"peers: claw --help / fastest peer's ({fastest.name}) median wall", ratio, 0.5, "×"))
    for peer in peers:
        if peer.name == "nanobot":
            ratio = turn_wall / median([s.wall for s in peer.turns])
            targets.append(Target("peers: claw cold agent -m / nanobot's median wall", ratio, 0.35, "×"))
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
