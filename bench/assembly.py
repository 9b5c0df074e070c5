"""claw's own per-turn work, step by step, on the session a benchmark has just run.

Calls the runner's building blocks directly, with the gateway's own objects and data: what
`AgentRunner` does before each model call (prompt sections, `ContextManager.build`: transcript
read, history view, bootstrap files, pruning, assembly) and what the gateway does after the
reply (`SessionStore.record_turn`). Each step's median over `repeat` calls is printed; "cold"
steps build fresh objects each time and run `COLD_REPEAT` times. Also: encoding the request body
(warm, as claw does, and whole, as the openai client would), and the `openai` client's own
transform of the params (which claw skips).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from claw.agent.bootstrap import BootstrapLoader
from claw.agent.context_manager import ContextManager
from claw.agent.history import HistoryView
from claw.agent.pruning import prune_units
from claw.agent.sections import SectionRequest
from claw.agent.turn import Turn
from claw.gateway.gateway import Gateway
from claw.providers.request_body import RequestEncoder
from claw.store.transcript import Transcript

COLD_REPEAT = 5


def timed(fn: Callable[[], Any], repeat: int) -> float:
    """Median seconds of `repeat` calls of `fn`."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


async def timed_async(fn: Callable[[], Awaitable[Any]], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def _openai_transform(body: dict[str, Any]) -> Callable[[], Any] | None:
    """What `chat.completions.create` does to the params before encoding them (a private API: may move)."""
    try:
        from openai._utils import maybe_transform
        from openai.types.chat import completion_create_params
    except ImportError:
        return None
    params = completion_create_params.CompletionCreateParamsStreaming
    return lambda: maybe_transform(body, params)


async def report(gateway: Gateway, session_key: str, message: str, *, repeat: int) -> dict[str, float]:
    """Print (and return, in seconds) the median cost of each step of one warm turn."""
    agent_id = session_key.split(":")[1]
    env = gateway.agent_env(agent_id)
    entry = env.sessions.get(session_key)
    if entry is None:
        raise RuntimeError(f"no session {session_key}")
    chain = gateway.runner.model_chain(env, None)
    tools = gateway.tools.schemas()
    path = env.sessions.transcript_path(entry.session_id)
    transcript = env.sessions.transcript(entry)
    entries = transcript.read()
    s = env.settings
    steps: dict[str, float] = {}

    request = SectionRequest(agent_id, session_key, env.workspace, s, message, "cli", "")
    steps["prompt sections (memory recall, skills, ...)"] = await timed_async(
        lambda: gateway.runner.render_sections(request), repeat
    )
    extra = await gateway.runner.render_sections(request)

    turn = Turn(env=env, session_key=session_key, transcript=transcript, tools=tools, extra=extra, chain=chain)

    def build(manager: ContextManager) -> Callable[[], Awaitable[Any]]:
        return lambda: manager.build(turn)

    steps["ContextManager.build, warm (the whole prompt)"] = await timed_async(build(gateway.runner.context), repeat)
    steps["  of which Transcript.read, warm (cache hit)"] = timed(transcript.read, repeat)
    view = gateway.runner.context.view(transcript)
    steps["  of which HistoryView.update, warm"] = timed(lambda: view.update(entries), repeat)
    window = gateway.runner.context.window(s, chain)
    steps["  of which prune_units"] = timed(lambda: prune_units(view.units, window, s.context_pruning), repeat)
    loader = BootstrapLoader()
    limits = (s.bootstrap_max_chars, s.bootstrap_total_max_chars)
    loader.load(env.workspace, *limits)
    steps["  of which BootstrapLoader.load, warm"] = timed(lambda: loader.load(env.workspace, *limits), repeat)
    steps["Transcript.message_count (record_turn calls it)"] = timed(transcript.message_count, repeat)
    steps["SessionStore.record_turn (count + index write)"] = timed(
        lambda: env.sessions.record_turn(session_key, preview="bench"), repeat
    )
    steps["cold: Transcript.read (parse every line)"] = timed(lambda: Transcript(path).read(), COLD_REPEAT)
    steps["cold: HistoryView.update (convert every entry)"] = timed(lambda: HistoryView().update(entries), COLD_REPEAT)
    steps["cold: ContextManager.build (first turn)"] = await timed_async(
        lambda: build(ContextManager(gateway.router, gateway.tools))(), COLD_REPEAT
    )

    prompt = await build(gateway.runner.context)()
    body = {"model": "test-model", "messages": prompt.messages, "stream": True, "tools": tools}
    encoded = json.dumps(body)
    encoder = RequestEncoder()
    encoder.encode(body)
    steps["RequestEncoder.encode, warm (history encoded before)"] = timed(lambda: encoder.encode(body), repeat)
    steps["compare: json.dumps(request body)"] = timed(lambda: json.dumps(body), repeat)
    transform = _openai_transform(body)
    if transform is not None:
        steps["compare: openai maybe_transform (skipped now)"] = timed(transform, repeat)

    print(
        f"claw's steps, median of {repeat} (cold: {COLD_REPEAT}); transcript {len(entries)} entries "
        f"({path.stat().st_size / 1e6:.1f} MB), prompt {len(prompt.messages)} messages / {len(encoded) / 1024:.0f} KB"
    )
    for name, seconds in steps.items():
        print(f"  {name:<50} {seconds * 1000:8.3f} ms")
    return steps
