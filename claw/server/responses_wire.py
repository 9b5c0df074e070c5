"""The OpenAI Responses wire format (OpenResponses), for `POST /v1/responses`.

What a request may say that claw uses: `model` (`claw/<agentId>`), `input` (a string, or a list of input
items whose last user message is the turn), `stream`, `user`, and `previous_response_id` (the session of
that response goes on). `instructions`, `tools`, `temperature` and the rest of OpenAI's request are
accepted and ignored, as for chat completions: the agent has its own prompt, tools and model settings.

A response is OpenAI's `response` object with one `message` output item holding one `output_text` part;
a streamed one is the documented event sequence (`response.created` … `response.output_text.delta` …
`response.completed`, or `response.failed`), each a server-sent event named by its `type`, numbered by
`sequence_number`. A response's id is `resp_<runId>`, so `previous_response_id` finds the run's session.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from claw.server.openai_wire import WireError

RESPONSE_PREFIX = "resp_"


class ResponsesRequest(BaseModel):
    """The fields claw uses (see the module docstring); the others are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    model: str = Field(min_length=1, max_length=200)
    input: str | list[dict[str, Any]]
    stream: StrictBool = False
    user: str | None = Field(default=None, max_length=256)
    previous_response_id: str | None = Field(default=None, max_length=300)


def parse_responses_request(raw: Any) -> ResponsesRequest:
    if not isinstance(raw, dict):
        raise WireError(400, "the request body must be a JSON object")
    try:
        return ResponsesRequest.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        param = ".".join(str(p) for p in err["loc"][:1])
        raise WireError(400, f"invalid {param}: {err['msg']}", param=param) from None


def input_text(request: ResponsesRequest) -> str:
    """The turn's text: `input` itself, or the text of the last user message among its items."""
    if isinstance(request.input, str):
        text = request.input
    else:
        items = request.input
        users = [item for item in items if item.get("role") == "user" and item.get("type", "message") == "message"]
        text = _text_of(users[-1].get("content")) if users else ""
    if not text.strip():
        raise WireError(400, "the input has no user text; claw runs it as a turn of the agent", param="input")
    return text


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "input_text")
    return ""


def usage_wire(usage: dict[str, int]) -> dict[str, Any]:
    given, got = usage.get("input", 0), usage.get("output", 0)
    return {
        "input_tokens": given,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": got,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": given + got,
    }


def message_item(item_id: str, text: str | None, status: str = "completed") -> dict[str, Any]:
    """The one output item: the assistant's message (no content yet while `in_progress`)."""
    content = [] if text is None else [output_text(text)]
    return {"type": "message", "id": item_id, "status": status, "role": "assistant", "content": content}


def output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def response(
    response_id: str,
    created: int,
    model: str,
    *,
    status: str,
    output: list[dict[str, Any]],
    usage: dict[str, int] | None = None,
    error: dict[str, str] | None = None,
) -> dict[str, Any]:
    """OpenAI's `response` object, with the fields the official client reads."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "model": model,
        "output": output,
        "usage": usage_wire(usage) if usage is not None else None,
        "error": error,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": None,
        "tool_choice": "auto",
        "tools": [],
        "top_p": None,
    }


class EventStream:
    """Numbers a streamed response's events (`sequence_number`) and frames each as a named SSE event."""

    def __init__(self) -> None:
        self._next = 0

    def event(self, kind: str, **fields: Any) -> bytes:
        body = {"type": kind, "sequence_number": self._next, **fields}
        self._next += 1
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        return f"event: {kind}\ndata: {data}\n\n".encode()
