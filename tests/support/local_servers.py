"""What local model servers answer besides the OpenAI API, for the scripted model server.

Each kind (``ollama``, ``llamacpp``, ``vllm``, ``lmstudio``) says its context window on its own endpoint;
``ScriptedModelServer(local=LocalServer("ollama", 8192))`` makes the server answer as that kind does.
Kept apart from model_server.py so that other additions to the scripted server merge cleanly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web

CHARS_PER_TOKEN = 3
"""The llama.cpp kind's `/tokenize`: a tokenizer of three characters a token (claw assumes four)."""


@dataclass(frozen=True, slots=True)
class LocalServer:
    """A server of `kind` whose models run with a `window`-token context."""

    kind: str
    window: int


def add_local_routes(app: web.Application, server: Any) -> None:
    """Ollama's ``/api/show``, llama.cpp's ``/props`` and LM Studio's ``/api/v0/models``, answered only when the
    server plays that kind (others get the catch-all 404, as the real servers do)."""

    def local() -> LocalServer | None:
        return server.local

    async def show(request: web.Request) -> web.StreamResponse:
        record, early = await server._read(request)
        spec = local()
        if early is not None or spec is None or spec.kind != "ollama":
            return early or await server._not_found(request, recorded=True)
        return web.json_response(
            {
                "parameters": f'num_ctx                        {spec.window}\nstop "<|im_end|>"',
                "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
                "details": {"family": "qwen2"},
            }
        )

    async def props(request: web.Request) -> web.StreamResponse:
        _record, early = await server._read(request)
        spec = local()
        if early is not None or spec is None or spec.kind != "llamacpp":
            return early or await server._not_found(request, recorded=True)
        return web.json_response({"default_generation_settings": {"n_ctx": spec.window}, "total_slots": 1})

    async def lmstudio(request: web.Request) -> web.StreamResponse:
        _record, early = await server._read(request)
        spec = local()
        if early is not None or spec is None or spec.kind != "lmstudio":
            return early or await server._not_found(request, recorded=True)
        data = [
            {
                "id": name,
                "object": "model",
                "state": "loaded",
                "max_context_length": 131072,
                "loaded_context_length": spec.window,
            }
            for name in server.models
        ]
        return web.json_response({"object": "list", "data": data})

    async def tokenize(request: web.Request) -> web.StreamResponse:
        record, early = await server._read(request)
        spec = local()
        if early is not None or spec is None or spec.kind != "llamacpp":
            return early or await server._not_found(request, recorded=True)
        content = str(record.body.get("content", ""))
        return web.json_response({"tokens": list(range(len(content) // CHARS_PER_TOKEN))})

    app.router.add_post("/tokenize", tokenize)
    app.router.add_post("/api/show", show)
    app.router.add_get("/props", props)
    app.router.add_get("/api/v0/models", lmstudio)


def model_fields(spec: LocalServer | None) -> dict[str, Any]:
    """Extra fields of each ``/v1/models`` entry: vLLM's ``max_model_len``."""
    return {"max_model_len": spec.window} if spec is not None and spec.kind == "vllm" else {}
