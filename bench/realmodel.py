"""claw against a real llama.cpp server (SmolLM2-135M, scripts/install-llama-server.sh): the fixed prompt's real
token count at 4k, 8k, 32k and 128k windows, and claw's own overhead on a turn.

    python -m bench.realmodel [--runs N]

Fixed prompt: what `/context` calls rules, bootstrap files, memory and skills sections and tool schemas, built by
the gateway's own `ContextManager` for a fresh `claw init` workspace at each window (`contextWindow` in config),
then counted by the server's `/tokenize` (system prompt and tool schemas as JSON; the chat template adds a few).
Turn overhead: a `claw agent`-style turn through an in-process gateway (`LocalClient`), start to end event, minus
the same request (the prompt claw built, the same tools) sent straight to the server, non-streamed; the server
runs `--temp 0 --seed 1 -n 48` so both produce the same reply. Medians over `--runs`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.report import Target, finish
from tests.support.llama_server import MODEL_NAME, LlamaServer, find_llama

WINDOWS = (4_096, 8_192, 32_768, 131_072)


def _gateway(home: Path) -> Any:
    from claw.client.local import LocalClient
    from claw.compose import build_gateway
    from claw.config import load_config
    from claw.paths import Paths

    paths = Paths.from_env()
    gateway = build_gateway(paths, load_config(paths))
    return gateway, LocalClient(gateway)


FIXED_SECTIONS = (
    "base",
    "SOUL.md",
    "AGENTS.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "memory",
    "skills",
    "tool schemas",
)
"""The sections of `/context` that make the fixed prompt (everything but history, the message and the reserve)."""


async def _fixed_prompt(server: LlamaServer, window: int) -> tuple[str, int, int, int, int]:
    from claw.agent.tokens import json_text
    from claw.agent.turn import Turn
    from claw.gateway.context_commands import _inputs

    home = Path(os.environ["CLAW_HOME"])
    (home / "config.toml").write_text(f'[models."{MODEL_NAME}"]\ncontextWindow = {window}\n')
    gateway, client = _gateway(home)
    try:
        env, transcript, chain, extra, _entry = await _inputs(gateway, "main", "agent:main:bench")
        schemas = await gateway.tools.turn_schemas("main", "agent:main:bench")
        prompt = await gateway.runner.context.build(Turn(env, "agent:main:bench", transcript, schemas, extra, chain))
    finally:
        await client.close()
    system = prompt.messages[0]["content"]
    claws = sum(section.tokens for section in prompt.sections if section.name in FIXED_SECTIONS)
    return prompt.mode, server.count(system), server.count(json_text(prompt.tools)), len(prompt.tools), claws


async def _turns(server: LlamaServer, runs: int) -> tuple[list[float], list[float]]:
    from claw.agent.turn import Turn
    from claw.gateway.context_commands import _inputs

    home = Path(os.environ["CLAW_HOME"])
    (home / "config.toml").write_text("")
    claw_s: list[float] = []
    direct_s: list[float] = []
    for n in range(runs):
        gateway, client = _gateway(home)
        key = f"agent:main:turn{n}"
        try:
            started = time.perf_counter()
            run = await client.run("Say hello.", session_key=key)
            async for _event in client.events(run.run_id):
                pass
            claw_s.append(time.perf_counter() - started)
            env, transcript, chain, extra, _entry = await _inputs(gateway, "main", key + "x")
            schemas = await gateway.tools.turn_schemas("main", key + "x")
            prompt = await gateway.runner.context.build(Turn(env, key + "x", transcript, schemas, extra, chain))
        finally:
            await client.close()
        body = {"model": MODEL_NAME, "messages": [*prompt.messages, {"role": "user", "content": "Say hello."}],
                "tools": prompt.tools}  # fmt: skip
        request = urllib.request.Request(server.base_url + "/chat/completions", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})  # fmt: skip
        started = time.perf_counter()
        await asyncio.to_thread(_send, request)
        direct_s.append(time.perf_counter() - started)
    return claw_s, direct_s


def _send(request: urllib.request.Request) -> None:
    with urllib.request.urlopen(request, timeout=300) as response:
        response.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="turns to time (0: only count the fixed prompt)")
    args = parser.parse_args()
    found = find_llama()
    if isinstance(found, str):
        sys.exit(found)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        server = LlamaServer(*found, log_path=Path(tmp) / "server.log", extra=("--temp", "0", "--seed", "1"))
        try:
            server.wait_ready()
            os.environ.update(CLAW_HOME=str(home), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="none",
                              CLAW_MODEL=MODEL_NAME)  # fmt: skip
            subprocess.run([sys.executable, "-m", "claw", "init"], check=True, capture_output=True)
            print("fixed prompt, real tokens (server's /tokenize), fresh `claw init` workspace:")
            targets: list[Target] = []
            for window in WINDOWS:
                mode, system, tools, count, claws = asyncio.run(_fixed_prompt(server, window))
                total = system + tools
                if window == 4096:  # issue 35: at most 1,200 real tokens
                    targets.append(Target("realmodel fixed prompt at a 4,096-token window", total, 1201, "tokens"))
                print(f"  window {window:>7,}  {mode:<5}  system {system:>5,}  tools {tools:>5,} ({count} tools)  "
                      f"total {total:>5,}  ({100 * total / window:4.1f}% of the window)  "
                      f"claw counted {claws:>5,} ({100 * (claws - total) / total:+.1f}%)")  # fmt: skip
            if args.runs < 1:
                return finish(targets)
            claw_s, direct_s = asyncio.run(_turns(server, args.runs))
            overhead = [c - d for c, d in zip(claw_s, direct_s, strict=True)]
            print(f"turn ('Say hello.', 4,096 window, n={args.runs}): claw p50 {statistics.median(claw_s):.2f} s, "
                  f"same request straight to the server p50 {statistics.median(direct_s):.2f} s, "
                  f"claw's overhead p50 {statistics.median(overhead):+.2f} s")  # fmt: skip
        finally:
            server.stop()
    return finish(targets)


if __name__ == "__main__":
    sys.exit(main())
