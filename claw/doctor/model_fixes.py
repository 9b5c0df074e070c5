"""What to do, per server kind, when `claw doctor model` finds a problem: the flag, variable or command.

The kind is what answered the window probe (`claw.providers.server_window.probe_window`): `ollama`,
`llamacpp`, `vllm`, `lmstudio`, or None for any other OpenAI-compatible endpoint.
"""

from __future__ import annotations


def window_fix(kind: str | None, model: str, ref: str, tokens: int) -> str:
    """How to give the model the window claw budgets for (`tokens`), or to budget for what it has."""
    lower = f'or budget for less: claw config set models."{ref}".contextWindow <tokens>'
    if kind == "ollama":
        return (
            f"claw sends num_ctx={tokens} with each request; if the prompt is still cut, run `ollama serve` with "
            f"OLLAMA_CONTEXT_LENGTH={tokens} (or PARAMETER num_ctx in a Modelfile), {lower}"
        )
    if kind == "llamacpp":
        return f"start llama-server with -c {tokens} (the context is split across --parallel slots), {lower}"
    if kind == "vllm":
        return f"start vLLM with --max-model-len {tokens}, {lower}"
    if kind == "lmstudio":
        return f"load {model} with a context length of {tokens} (`lms load --context-length {tokens}`), {lower}"
    return f"give the server a {tokens:,}-token context, {lower}"


def tools_fix(kind: str | None, model: str) -> str:
    """How to get tool calls from a server that refused or ignored them."""
    if kind == "ollama":
        return (
            f"`ollama show {model}` must list `tools` under Capabilities: "
            "pull a model with tool support (qwen3, llama3.1, mistral-nemo)"
        )
    if kind == "llamacpp":
        return "start llama-server with --jinja (it then parses tool calls with the model's chat template)"
    if kind == "vllm":
        return "start vLLM with --enable-auto-tool-choice --tool-call-parser <hermes|llama3_json|mistral|qwen3_coder>"
    if kind == "lmstudio":
        return f"load a build of {model} that LM Studio marks as tool-capable"
    return "use a model (and server) with tool-call support"


def text_tools_fix(kind: str | None, fmt: str, ref: str) -> str:
    """A model that writes its calls as text works; this is how to make them native (or skip detection)."""
    native = {"vllm": f" (vLLM: --tool-call-parser {fmt})", "llamacpp": " (llama-server: --jinja)"}.get(kind or "", "")
    return (
        f"claw parses them; for native calls use a server-side tool parser{native}, "
        f'or pin the format: models."{ref}".toolCallFormat = "{fmt}"'
    )


def streaming_fix(kind: str | None) -> str:
    if kind == "ollama":
        return "update Ollama (`ollama --version`; its /v1 endpoint streams since 0.1.24)"
    return (
        "claw needs stream=true on /v1/chat/completions: update the server, or put a proxy that streams in front of it"
    )
