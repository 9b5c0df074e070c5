"""`claw doctor`'s checks of what claw talks to: the model endpoint and a running gateway.

The endpoint is resolved exactly as a real model call resolves it (`ModelRouter.resolve`, then
`openai_compat.endpoint`), then asked for its models with a short timeout. Every URL shown is
redacted first: `OPENAI_BASE_URL=http://user:password@host/v1` must not put the password on screen.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from claw.config import Config, ProviderSettings
from claw.errors import NoModelError
from claw.finding import Finding, agent_key, fail, listed, ok, warn
from claw.paths import Paths
from claw.providers.failover import ModelRouter
from claw.providers.openai_compat import default_key_env, endpoint
from claw.redact import redact_url, redact_urls

if TYPE_CHECKING:
    import openai

ENDPOINT_TIMEOUT_SECONDS = 5.0


def check_models(config: Config, agent_id: str) -> list[Finding]:
    """One finding for the primary model and one per fallback."""
    chain = config.agent(agent_id).model.chain()
    if not chain:
        guidance = NoModelError().message
        detail, _, fix = guidance.partition(": ")
        return [fail("model", f"{detail} for agent {agent_id}", fix)]
    router = ModelRouter(config)
    primary = config.agent(agent_id).model.primary
    return [_check_model(router, config, agent_id, ref, "model" if ref == primary else "fallback") for ref in chain]


def _check_model(router: ModelRouter, config: Config, agent_id: str, ref: str, name: str) -> Finding:
    import openai

    model = router.resolve(ref)
    settings = config.providers.get(model.provider, ProviderSettings())
    base_url, api_key = endpoint(model.provider, settings, os.environ)
    client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=ENDPOINT_TIMEOUT_SECONDS, max_retries=0)
    url = redact_url(str(client.base_url).rstrip("/"))
    try:
        listed_ids = [m.id for m in client.models.list()]
    except openai.APIConnectionError as exc:  # a timeout is one too
        reason = "no answer" if isinstance(exc, openai.APITimeoutError) else _cause(exc)
        detail = f"{ref}: cannot reach {url} ({reason})"
        return fail(name, detail, f"start the server, or point claw at it: {_url_setting(model.provider, settings)}")
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        detail = f"{ref}: {url} refused the API key ({exc.status_code})"
        return fail(name, detail, f"set a valid key: {_key_setting(model.provider, settings)}")
    except openai.APIError as exc:
        status = getattr(exc, "status_code", None)
        detail = f"{ref}: {url} answers, but not to GET /models ({status or exc.message})"
        return warn(name, detail, "nothing to do if replies work (`claw agent -m hi`); some servers lack /models")
    finally:
        client.close()
    # Ollama lists `llama3.2:latest` for a model that answers to `llama3.2` too.
    if model.model in listed_ids or f"{model.model}:latest" in listed_ids:
        return ok(name, f"{ref} at {url}: the endpoint lists it")
    key = agent_key(agent_id, "model")
    if not listed_ids:
        return warn(name, f"{ref}: {url} answers but lists no models", f"if replies fail, check the name in {key}")
    detail = f"{ref}: {url} answers but does not list {model.model!r}"
    return warn(name, detail, f"use one it serves ({listed(listed_ids)}): claw config set {key} …")


def _cause(exc: openai.APIConnectionError) -> str:
    cause: BaseException = exc
    while cause.__cause__ is not None:  # httpx's ConnectError under openai's "Connection error."
        cause = cause.__cause__
    return redact_urls(str(cause) or exc.message)


def _url_setting(provider: str, settings: ProviderSettings) -> str:
    if provider == "openai" and not settings.base_url:
        return "OPENAI_BASE_URL"
    return f"providers.{provider}.baseUrl"


def _key_setting(provider: str, settings: ProviderSettings) -> str:
    if settings.api_key:
        return f"providers.{provider}.apiKey"
    return settings.api_key_env or default_key_env(provider)


def check_gateway(paths: Paths) -> Finding:
    """Running or not (both fine); a runtime file whose process lives but does not answer is a warning."""
    import asyncio

    from claw.client.status_probe import probe_status  # the same probe as `claw gateway status`
    from claw.gateway_token import resolve_token
    from claw.server.runtime_file import read_runtime

    name, file = "gateway", paths.gateway_runtime_file
    info = read_runtime(paths)
    if info is None:
        stale = f" ({file.name} of a stopped gateway is ignored)" if file.exists() else ""
        return ok(name, f"not running — commands run in-process{stale}")
    token, _source = resolve_token(paths)
    state = asyncio.run(probe_status(info.url, token or ""))
    if "error" in state:
        detail = f"{file.name} says pid {info.pid} serves {info.url}, but it did not answer: {state['error']}"
        fix = f"if pid {info.pid} is not `claw gateway run`, delete {file}; else stop it and start it again"
        return warn(name, detail, fix)
    return ok(name, f"running at {info.url} (pid {info.pid}, version {info.version})")
