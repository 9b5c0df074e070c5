"""`claw doctor model [REF]`: one real round trip per thing a local model server gets wrong.

Six lines, in order: the endpoint lists the model (`GET /v1/models`); a streamed reply arrives (first
token, tokens/s); a tool call round-trips (native `tool_calls`, or which text parser read it); the
context window (what the server reports against what claw budgets); a long prompt arrives whole (a
marker at its start must come back, and the server's `prompt_tokens` must match claw's estimate);
reasoning output. Each call goes through claw's own provider with the body a turn would send (Ollama's
`num_ctx` included) and under the `--timeout`; an endpoint that does not answer ends the run at once,
its line saying so, the others skipped.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import TYPE_CHECKING, Any

from claw.agent.context_manager import ContextManager
from claw.agent.tokens import json_text
from claw.agent.windows import model_window
from claw.config import AgentSettings, Config, ProviderSettings
from claw.doctor import model_checks as checks
from claw.doctor.model_checks import NAMES
from claw.doctor.model_target import ModelReport, Target
from claw.doctor.services import _cause, _key_setting, _url_setting
from claw.errors import NoModelError
from claw.finding import Finding, fail, listed, ok, warn
from claw.providers.failover import ModelRouter
from claw.providers.openai_compat import OpenAICompatProvider, endpoint
from claw.providers.refs import ModelRef
from claw.providers.server_window import probe_window
from claw.redact import redact_url
from claw.tools.registry import ToolRegistry

if TYPE_CHECKING:
    import openai

LIST_TIMEOUT_SECONDS = 5.0
"""`GET /v1/models` answers at once on any live server; this long only for a slow network."""


async def doctor_model(
    config: Config, agent_id: str, ref: str | None, *, timeout: float, probe_tokens: int | None = None
) -> ModelReport:
    """Run the checks against `ref` (default: the agent's primary model)."""
    start = time.perf_counter()
    chain = [ref] if ref else config.agent(agent_id).model.chain()
    if not chain:
        raise NoModelError()
    router = ModelRouter(config)
    model = router.resolve(chain[0])
    settings = router.provider_settings(model.provider)
    fast = settings.model_copy(update={"timeout_seconds": timeout, "max_retries": 0})
    provider = OpenAICompatProvider(model.provider, fast)
    base_url, api_key = endpoint(model.provider, fast, os.environ)
    manager = ContextManager(router, ToolRegistry([]), config.models)
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=min(timeout, LIST_TIMEOUT_SECONDS), max_retries=0)
    url = str(client.base_url).rstrip("/")
    report = ModelReport(chain[0], redact_url(url))
    try:
        try:
            (listing, go_on), (kind, reported) = await asyncio.gather(
                _endpoint(client, model, report.url, fast), _server(manager, chain[0], model, url)
            )
        finally:
            await client.close()
        report.findings.append(listing)
        if not go_on:
            report.findings += [_skipped(name) for name in NAMES[1:]]
            return report
        agent = config.agent(agent_id)
        window = manager.window(agent, chain[:1])
        manager.size_ollama(chain[:1], window)
        source = _window_source(manager, config, model, window, agent)
        mode, fixed = await _fixed_prompt(manager, config, agent_id, chain[:1], window)
        target = Target(
            ref=chain[0],
            model=model,
            provider=provider,
            url=report.url,
            kind=kind,
            reported=reported,
            window=window,
            window_source=source,
            reserve=manager.reserve(agent, window),
            extra_body=router.extra_bodies.get(chain[0]),
            timeout=timeout,
            mode=mode,
            fixed_tokens=fixed,
        )
        await checks.run(target, report, probe_tokens)
        return report
    finally:
        await provider.aclose()
        report.seconds = time.perf_counter() - start


async def _endpoint(
    client: openai.AsyncOpenAI, model: ModelRef, url: str, settings: ProviderSettings
) -> tuple[Finding, bool]:
    """The endpoint line, and whether the other checks may go on."""
    import openai

    try:
        ids = [m.id async for m in client.models.list()]
    except openai.APIConnectionError as exc:
        reason = "no answer" if isinstance(exc, openai.APITimeoutError) else _cause(exc)
        fix = f"start the server, or point claw at it: {_url_setting(model.provider, settings)}"
        return fail("endpoint", f"cannot reach {url} ({reason})", fix), False
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        fix = f"set a valid key: {_key_setting(model.provider, settings)}"
        return fail("endpoint", f"{url} refused the API key ({exc.status_code})", fix), False
    except openai.APIError as exc:
        status = getattr(exc, "status_code", None) or exc.message
        detail = f"{url} answers, but not to GET /models ({status}): cannot tell whether it serves {model.model}"
        return warn("endpoint", detail, "nothing to do if the lines below pass; some servers lack /models"), True
    if model.model in ids or f"{model.model}:latest" in ids:
        return ok("endpoint", f"{url} answers and lists {model.model}"), True
    if not ids:
        detail = f"{url} answers but lists no models"
    else:
        detail = f"{url} does not serve {model.model!r} (it lists {listed(ids)})"
    fix = f"ollama pull {model.model}" if model.provider == "ollama" else "load the model on the server"
    if ids:
        fix += f", or use one it serves: claw doctor model {model.provider}/{ids[0]}"
    return fail("endpoint", detail, fix), False


async def _server(manager: ContextManager, ref: str, model: ModelRef, url: str) -> tuple[str | None, int | None]:
    """`(kind, window)` of the local server that answers. The context manager's own probe when it made one (a
    local provider without `contextWindow`), else one of ours: the line then tells what the server runs even
    when config sets the window, and names an Ollama reached as provider `openai`."""
    await manager.discover_window([ref])
    key = str(model)
    if key in manager.server_windows:
        return manager.server_kinds.get(key), manager.server_windows[key]
    found = await probe_window(url, model.model)
    return (found[1], found[0]) if found else (None, None)


async def _fixed_prompt(
    manager: ContextManager, config: Config, agent_id: str, chain: list[str], window: int
) -> tuple[str, int | None]:
    """`(mode, tokens)` of the fixed prompt a turn at `window` would start from: the rules, the workspace's
    bootstrap files and the built-in tools' schemas, shaped as the mode shapes them, counted by the server's
    tokenizer where it has one (else claw's estimate)."""
    from claw.agent.context import join_parts, system_parts
    from claw.agent.small_window import cap_files, is_small, small_tools
    from claw.agent.tokens import counting_at, estimate_json, estimate_text
    from claw.paths import Paths
    from claw.tools.registry import builtin_tools
    from claw.workspace import workspace_dir

    agent = config.agent(agent_id)
    workspace = workspace_dir(Paths.from_env(), config, agent_id)
    files = await manager.load_bootstrap(agent, workspace, f"agent:{agent_id}:main")
    tools = ToolRegistry(builtin_tools()).schemas()
    small = is_small(window)

    def parts_text(files: list[Any]) -> str:
        return join_parts(system_parts(workspace=workspace, agent_id=agent_id, session_key="-", bootstrap=files,
                                       small=small))  # fmt: skip

    await manager.calibrate(chain, lambda: parts_text(files) + json_text(tools))
    ratio = manager.ratio(chain)
    if ratio:
        counting_at(ratio[0])
    if small:
        files, tools = cap_files(files, window), small_tools(tools, window)
    return ("small" if small else "full"), estimate_text(parts_text(files)) + estimate_json(tools)


def _window_source(manager: ContextManager, config: Config, model: ModelRef, window: int, agent: AgentSettings) -> str:
    """Where the budget's window came from, as `/context` says it: config, server, known or default."""
    source = model_window(model, config.models)[1]
    if source != "config" and manager.server_windows.get(str(model)) == window:
        source = "server"
    if "context_tokens" in agent.model_fields_set and window == agent.context_tokens:
        source = "config"
    return source


def _skipped(name: str) -> Finding:
    return warn(name, "skipped: the endpoint line failed", "fix the endpoint line first")
