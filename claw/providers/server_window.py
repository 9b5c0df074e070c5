"""The context window a local model server really runs with, asked from the server itself.

Ollama, llama.cpp's server, vLLM and LM Studio each say it somewhere else, and none through the
OpenAI API: Ollama in `POST /api/show` (`num_ctx` in `parameters` when the model sets one, else the
model's `*.context_length`, which Ollama itself may cut to its default), llama.cpp in `GET /props`
(`default_generation_settings.n_ctx`, or `n_ctx`; else `meta.n_ctx` in `/v1/models`), vLLM in
`GET /v1/models` (`max_model_len`), LM Studio in `GET /api/v0/models` (`loaded_context_length`, else
`max_context_length`). Each probe is one short request under `PROBE_TIMEOUT_SECONDS`; a server that
does not answer it gives None and the caller keeps its configured or default window. The parsers are
pure functions so tests can feed them the servers' documented bodies.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

log = logging.getLogger(__name__)

PROBE_TIMEOUT_SECONDS = 1.5
"""A local server answers these in milliseconds; one that does not must not hold up a turn for long."""


def ollama_window(show: object) -> int | None:
    """From Ollama's `/api/show` body: `num_ctx` set in the model's parameters wins (that is what the
    server loads it with), else the model's trained `<arch>.context_length`."""
    if not isinstance(show, dict):
        return None
    params = show.get("parameters")
    if isinstance(params, str):
        found = re.search(r"^\s*num_ctx\s+(\d+)", params, re.MULTILINE)
        if found:
            return int(found.group(1))
    info = show.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if key.endswith(".context_length") and _positive(value):
                return int(value)
    return None


def llamacpp_window(props: object) -> int | None:
    """From llama.cpp server's `/props`: the slot's `n_ctx` (what one request may use)."""
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    if isinstance(settings, dict) and _positive(settings.get("n_ctx")):
        return int(settings["n_ctx"])
    return int(props["n_ctx"]) if _positive(props.get("n_ctx")) else None


def llamacpp_models_window(models: object, model: str) -> int | None:
    """From llama.cpp server's `/v1/models`: `meta.n_ctx` (the slot's window) of the entry named `model` (its id
    or one of its `aliases`), or of the only entry (llama-server serves one model, under any name)."""
    data = models.get("data") if isinstance(models, dict) else None
    entries = [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []
    named = [e for e in entries if e.get("id") == model or model in (e.get("aliases") or ())]
    for entry in named or (entries if len(entries) == 1 and entries[0].get("owned_by") == "llamacpp" else []):
        meta = entry.get("meta")
        if isinstance(meta, dict) and _positive(meta.get("n_ctx")):
            return int(meta["n_ctx"])
    return None


def vllm_window(models: object, model: str) -> int | None:
    """From vLLM's `/v1/models`: `max_model_len` of the entry whose id is `model`."""
    return _listed(models, model, ("max_model_len",))


def lmstudio_window(models: object, model: str) -> int | None:
    """From LM Studio's `/api/v0/models`: the loaded context length, else the model's maximum."""
    return _listed(models, model, ("loaded_context_length", "max_context_length"))


def _listed(models: object, model: str, fields: tuple[str, ...]) -> int | None:
    data = models.get("data") if isinstance(models, dict) else None
    for entry in data if isinstance(data, list) else ():
        if isinstance(entry, dict) and entry.get("id") in (model, f"{model}:latest"):
            for name in fields:
                if _positive(entry.get(name)):
                    return int(entry[name])
    return None


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def server_root(base_url: str) -> str:
    """`http://host:port` of an OpenAI-style base URL (`…/v1`): where the servers' own endpoints live."""
    return re.sub(r"/v1/?$", "", base_url.rstrip("/"))


async def probe_window(base_url: str, model: str, *, timeout: float = PROBE_TIMEOUT_SECONDS) -> tuple[int, str] | None:  # noqa: ASYNC109
    """`(window, server kind)` from the first of the four servers' endpoints that answers it, or None.

    The endpoints are asked at once: a server answers its own in milliseconds and 404s the others."""
    import aiohttp

    root = server_root(base_url)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:

        async def ask(method: str, path: str, body: dict[str, Any] | None = None) -> object:
            try:
                async with http.request(method, root + path, json=body) as response:
                    if response.status != 200:
                        return None
                    return json.loads(await response.read())
            except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
                log.debug("window probe %s %s failed: %s", method, path, exc)
                return None

        show, props, models, lmstudio = await asyncio.gather(
            ask("POST", "/api/show", {"model": model}),
            ask("GET", "/props"),
            ask("GET", "/v1/models"),
            ask("GET", "/api/v0/models"),
        )
    for kind, window in (
        ("ollama", ollama_window(show)),
        ("llamacpp", llamacpp_window(props) or llamacpp_models_window(models, model)),
        ("vllm", vllm_window(models, model)),
        ("lmstudio", lmstudio_window(lmstudio, model)),
    ):
        if window is not None:
            return window, kind
    return None


async def count_tokens(
    base_url: str, model: str, kind: str, text: str, *, timeout: float = PROBE_TIMEOUT_SECONDS
) -> int | None:  # noqa: ASYNC109
    """How many tokens `text` is by the server's own tokenizer: llama.cpp's `POST /tokenize` (`content` →
    `tokens`) or vLLM's (`prompt` → `count`); None for another kind of server, or when it does not answer."""
    if kind not in ("llamacpp", "vllm"):
        return None
    import aiohttp

    body: dict[str, Any] = {"content": text} if kind == "llamacpp" else {"model": model, "prompt": text}
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http,
            http.post(server_root(base_url) + "/tokenize", json=body) as response,
        ):
            if response.status != 200:
                return None
            found = json.loads(await response.read())
    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
        log.debug("tokenize at %s failed: %s", base_url, exc)
        return None
    if not isinstance(found, dict):
        return None
    if _positive(found.get("count")):
        return int(found["count"])
    tokens = found.get("tokens")
    return len(tokens) if isinstance(tokens, list) and tokens else None
