"""The server-reported context window: the parsers on the servers' bodies, and the probe over real sockets."""

from __future__ import annotations

import socket
import time

import pytest

from claw.providers.server_window import (
    llamacpp_models_window,
    llamacpp_window,
    lmstudio_window,
    ollama_window,
    probe_window,
    server_root,
    vllm_window,
)
from tests.support.local_servers import LocalServer
from tests.support.model_server import ScriptedModelServer


def test_ollama_num_ctx_wins_over_the_trained_length() -> None:
    show = {"parameters": "stop <|im_end|>\nnum_ctx 8192", "model_info": {"qwen2.context_length": 32768}}
    assert ollama_window(show) == 8192
    assert ollama_window({"parameters": "stop x", "model_info": {"llama.context_length": 131072}}) == 131072
    assert ollama_window({"model_info": {"general.architecture": "x"}}) is None
    assert ollama_window("not json object") is None


def test_llamacpp_vllm_lmstudio_bodies() -> None:
    assert llamacpp_window({"default_generation_settings": {"n_ctx": 4096}, "n_ctx": 16384}) == 4096
    assert llamacpp_window({"n_ctx": 16384}) == 16384
    assert llamacpp_window({"n_ctx": True}) is None
    models = {"data": [{"id": "other", "max_model_len": 1}, {"id": "qwen", "max_model_len": 40960}]}
    assert vllm_window(models, "qwen") == 40960 and vllm_window(models, "missing") is None
    loaded = {"data": [{"id": "m", "loaded_context_length": 4096, "max_context_length": 131072}]}
    assert lmstudio_window(loaded, "m") == 4096
    assert lmstudio_window({"data": [{"id": "m", "max_context_length": 131072}]}, "m") == 131072


def test_llamacpp_models_meta_n_ctx() -> None:
    """llama-server's own /v1/models entry (tools/server/server-context.cpp `get_res_model_info`)."""
    entry = {"id": "SmolLM2.gguf", "aliases": ["smollm2"], "object": "model", "owned_by": "llamacpp",
             "meta": {"vocab_type": 2, "n_vocab": 49152, "n_ctx": 4096, "n_ctx_train": 8192}}  # fmt: skip
    assert llamacpp_models_window({"data": [entry]}, "smollm2") == 4096
    assert llamacpp_models_window({"data": [entry]}, "any-name") == 4096  # the one model it serves
    assert llamacpp_models_window({"data": [{**entry, "owned_by": "vllm"}]}, "other") is None
    assert llamacpp_models_window({"data": [{"id": "x", "max_model_len": 1}]}, "x") is None


def test_server_root_strips_v1() -> None:
    assert server_root("http://127.0.0.1:11434/v1") == "http://127.0.0.1:11434"
    assert server_root("http://h:1/v1/") == "http://h:1"


@pytest.mark.parametrize("kind", ["ollama", "llamacpp", "vllm", "lmstudio"])
async def test_probe_finds_each_kind(kind: str) -> None:
    with ScriptedModelServer(models=("qwen",), local=LocalServer(kind, 6144)) as server:
        assert await probe_window(server.base_url, "qwen") == (6144, kind)


async def test_probe_of_a_plain_openai_server_is_none() -> None:
    with ScriptedModelServer(models=("qwen",)) as server:
        assert await probe_window(server.base_url, "qwen") is None
        assert {r.path for r in server.requests} == {"/api/show", "/props", "/v1/models", "/api/v0/models"}


async def test_probe_of_nothing_listening_is_none_and_quick() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    start = time.perf_counter()
    assert await probe_window(f"http://127.0.0.1:{port}/v1", "qwen", timeout=0.5) is None
    assert time.perf_counter() - start < 1.0
