"""Tool calls a model wrote as text instead of native `tool_calls`, and the stream filter that holds them back.

Local models served through Ollama, vLLM, llama.cpp or LM Studio often emit their tool calls in
their chat template's own markup. `stream.TextStream` keeps that markup (and `<think>` blocks) out
of the reply as it streams; `calls.parse_markup` turns the held markup into calls, one module per format.
"""
