"""Ledger rows made directly (as the router's calls would make them), for views over known numbers."""

from __future__ import annotations

import random
from pathlib import Path

from claw.providers.base import Usage
from claw.providers.metering import CallScope, ModelCall
from claw.usage.ledger import UsageLedger

LOCAL = {"ollama"}


def ledger(path: Path) -> UsageLedger:
    return UsageLedger(path, is_local=lambda provider: provider in LOCAL)


def call(
    ts: float,
    *,
    agent: str = "main",
    session: str = "agent:main:main",
    source: str = "chat",
    job: str | None = None,
    provider: str = "openai",
    model: str = "gpt-4o-mini",
    usage: Usage = Usage(1000, 100),
    estimated: bool = False,
) -> ModelCall:
    scope = CallScope(agent, session, "run-1", source, job)
    return ModelCall(ts, scope, provider, model, usage, estimated, "ok", None, 5.0, 20.0)


def random_calls(n: int, start: float, seed: int = 7) -> list[ModelCall]:
    """`n` calls over 40 days from `start`, spread over agents, sessions, sources, jobs and models."""
    rng = random.Random(seed)
    models = [("openai", "gpt-4o-mini"), ("openai", "gpt-4o"), ("ollama", "llama3.2"), ("openrouter", "x/unpriced")]
    out = []
    for _ in range(n):
        provider, model = rng.choice(models)
        source = rng.choice(["chat", "channel", "automation", "subagent", "compaction"])
        job = rng.choice(["j1", "j2"]) if source == "automation" else None
        inp = rng.randint(0, 5000)
        usage = Usage(inp, rng.randint(0, 800), rng.randint(0, inp // 2), 0, rng.randint(0, 50))
        agent = rng.choice(["main", "work"])
        out.append(
            call(start + rng.uniform(0, 40 * 86_400), agent=agent, session=f"agent:{agent}:s{rng.randint(1, 5)}",
                 source=source, job=job, provider=provider, model=model, usage=usage,
                 estimated=rng.random() < 0.1)
        )  # fmt: skip
    return out
