"""Models that follow `claw doctor model`'s prompts, well or in one broken way each, for the scripted server.

``DoctorModel()`` answers as a good local model does: a greeting, a native call to the offered ``echo``
tool with the code word it was asked for, a reply to the tool's result, and the code word from the start
of a long prompt. Each field breaks one thing the way real servers do: ``tools="refuse"`` answers 400
as Ollama does for a model without tool support, ``tools="prose"`` ignores the tools, ``tools="hermes"``
(or any ``TEXT_CALLS`` format) writes the call as text, ``tools="resent"`` streams the native call and then sends
it again whole in its last chunk (as some local servers do); ``keep_tokens`` keeps only the end of a prompt, as
Ollama past its ``num_ctx``, and reports only those tokens (``report_usage=False``: no usage at all);
``stream=False`` ignores ``stream``; ``reasoning`` streams ``reasoning_content``; ``think`` writes
``<think>`` first. Use it as the server's ``default`` responder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from tests.support.model_replies import (
    Completion,
    RecordedRequest,
    Reply,
    ToolCall,
    Usage,
    error,
    estimate_tokens,
    text,
)
from tests.support.stream_shapes import call_fragments, shaped

TOKEN = re.compile(r"claw-[0-9a-f]{8}")
TEXT_CALLS = {
    "hermes": '<tool_call>\n{{"name": "echo", "arguments": {{"text": "{token}"}}}}\n</tool_call>',
    "qwen3_coder": "<tool_call>\n<function=echo>\n<parameter=text>\n{token}\n</parameter>\n</function>\n</tool_call>",
    "mistral": '[TOOL_CALLS][{{"name": "echo", "arguments": {{"text": "{token}"}}}}]',
    "llama": '<|python_tag|>{{"name": "echo", "parameters": {{"text": "{token}"}}}}',
    "pythonic": '[echo(text="{token}")]',
    "json": '{{"name": "echo", "arguments": {{"text": "{token}"}}}}',
}


@dataclass
class DoctorModel:
    tools: str = "native"
    """native | resent | refuse | prose | one of TEXT_CALLS"""
    keep_tokens: int | None = None
    report_usage: bool = True
    stream: bool = True
    reasoning: str = ""
    think: str = ""

    def __call__(self, request: RecordedRequest) -> Reply:
        reply = self._answer(request)
        if isinstance(reply, Completion):
            content = f"<think>{self.think}</think>{reply.content}" if self.think else reply.content
            reply = replace(
                reply, content=content, reasoning=self.reasoning, sse=self.stream, report_usage=self.report_usage
            )
        return reply

    def _answer(self, request: RecordedRequest) -> Reply:
        messages = request.messages
        last = messages[-1] if messages else {}
        if request.tools:
            if self.tools == "refuse":
                return error(400, f"registry.ollama.ai/library/{request.model} does not support tools")
            if last.get("role") == "tool":
                return text(f"The echo tool said {last.get('content')}.")
            token = _token(str(last.get("content", "")))
            if self.tools == "native":
                return Completion(tool_calls=(ToolCall("echo", json.dumps({"text": token})),))
            if self.tools == "resent":
                args = {"text": token}
                again = call_fragments("echo", args, id="call_1", index=0)
                return shaped(*call_fragments("echo", args, id="call_1", pieces=3), *again, finish_reason="tool_calls")
            if self.tools in TEXT_CALLS:
                return text(TEXT_CALLS[self.tools].format(token=token), chunk=7)  # markup split mid-tag
            return text("I would rather just talk.")
        prompt = str(last.get("content", ""))
        if "code word" not in prompt:
            return text("Hello there, nice to meet you.")
        kept = prompt[-self.keep_tokens * 4 :] if self.keep_tokens else prompt
        sent = estimate_tokens([m if m is not last else {**m, "content": kept} for m in messages])
        found = TOKEN.search(kept)
        return text(found.group(0) if found else "I was not told a code word.", usage=Usage(sent, 5))


def _token(content: str) -> str:
    found = TOKEN.search(content)
    return found.group(0) if found else "no-token"
