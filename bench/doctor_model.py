"""`claw doctor model`: the whole command against an instant local server, as a user runs it.

Run from the repo root:  python -m bench.doctor_model  [--runs 7] [--window 32768]

The server is `ScriptedModelServer(instant=True)` playing Ollama (`/api/show` reports `--window`) with a
well-behaved model (tests/support/doctor_models.py), so every line passes and every request is made:
`GET /v1/models`, the window probes, a streamed reply, a tool call and its result, and the long prompt
(~90% of the window less the reserve: ~22,000 tokens, ~90 KB, at 32,768). Measured:

  command    wall time of `python -m claw doctor model ollama/qwen3:8b --json`, start to exit (imports included)
  checks     the report's own `seconds`: from resolving the model to the last line (the round trips)

Target (issue 20): command p50 under 2 s.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench.process import checked, user_env
from bench.report import Target, finish, machine_line, median, spread
from tests.support.doctor_models import DoctorModel
from tests.support.local_servers import LocalServer
from tests.support.model_server import ScriptedModelServer

REF = "ollama/qwen3:8b"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--window", type=int, default=32_768)
    args = parser.parse_args()
    print(machine_line())
    local = LocalServer("ollama", args.window)
    with (
        tempfile.TemporaryDirectory() as home,
        ScriptedModelServer(models=("qwen3:8b",), default=DoctorModel(), instant=True, local=local) as server,
    ):
        Path(home, "config.toml").write_text(f'[providers.ollama]\nbaseUrl = "{server.base_url}"\n', "utf-8")
        env = user_env()
        env.update(CLAW_HOME=home, NO_PROXY="127.0.0.1,localhost")
        walls, checks = [], []
        for _ in range(args.runs):
            sample = checked([sys.executable, "-m", "claw", "doctor", "model", REF, "--json"], env)
            report = json.loads(sample.stdout)
            if not report["ok"]:
                raise RuntimeError(f"a line failed: {report['checks']}")
            walls.append(sample.wall)
            checks.append(report["seconds"])
        prompt = report["stats"]["longPrompt"]["estimatedTokens"]
    print(f"long prompt: ~{prompt:,} tokens; {len(server.chat_requests) // args.runs} chat requests a run")
    print(spread("command (python -m claw doctor model)", walls, "s"))
    print(spread("checks (the report's seconds)", checks, "s"))
    return finish([Target("doctor model command p50", median(walls), 2.0, "s")])


if __name__ == "__main__":
    sys.exit(main())
