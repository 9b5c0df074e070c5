"""The OpenAI chat-completions wire format, for `POST /v1/chat/completions`.

Requests are validated with pydantic (unknown OpenAI fields are accepted and ignored,
malformed known ones are a 400); responses are built as the official `openai` client
expects them: `chat.completion`, or `chat.completion.chunk` server-sent events ending
with `data: [DONE]`, and errors as `{"error": {"message", "type", "param", "code"}}`.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from claw.errors import ClawError

AGENT_MODEL_PREFIX = "claw/"


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    include_usage: StrictBool = False


class ChatRequest(BaseModel):
    """The fields claw uses; the rest of OpenAI's request (temperature, tools …) is ignored: the agent decides."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    model: str = Field(min_length=1, max_length=200)
    messages: list[ChatMessage] = Field(min_length=1)
    stream: StrictBool = False
    stream_options: StreamOptions | None = None
    user: str | None = Field(default=None, max_length=256)
    n: int | None = Field(default=None, ge=1, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)


class WireError(ClawError):
    """An HTTP error in OpenAI's format."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": type, "param": param, "code": code}}


def parse_chat_request(raw: Any) -> ChatRequest:
    if not isinstance(raw, dict):
        raise WireError(400, "the request body must be a JSON object")
    try:
        return ChatRequest.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        param = ".".join(str(p) for p in err["loc"])
        raise WireError(400, f"invalid {param}: {err['msg']}", param=param) from None


def agent_for_model(model: str, agent_ids: list[str]) -> str:
    """`claw/<agentId>` (or plain `claw`, the main agent) → the agent id."""
    agent_id = "main" if model == "claw" else model.removeprefix(AGENT_MODEL_PREFIX)
    if (model != "claw" and not model.startswith(AGENT_MODEL_PREFIX)) or agent_id not in agent_ids:
        known = ", ".join(AGENT_MODEL_PREFIX + a for a in agent_ids)
        raise WireError(
            404, f"The model {model!r} does not exist (models: {known})", param="model", code="model_not_found"
        )
    return agent_id


def last_user_text(request: ChatRequest) -> str:
    for message in reversed(request.messages):
        if message.role != "user":
            continue
        content = message.content
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
        if content and content.strip():
            return content
        break
    raise WireError(400, "the last user message has no text; claw runs it as a turn of the agent", param="messages")


def usage_wire(usage: dict[str, int]) -> dict[str, int]:
    prompt, completion_tokens = usage.get("input", 0), usage.get("output", 0)
    return {"prompt_tokens": prompt, "completion_tokens": completion_tokens, "total_tokens": prompt + completion_tokens}


def completion(completion_id: str, created: int, model: str, text: str, usage: dict[str, int]) -> dict[str, Any]:
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": usage_wire(usage),
    }


def chunk(completion_id: str, created: int, model: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
    return sse(
        {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [choice],
        }
    )


def usage_chunk(completion_id: str, created: int, model: str, usage: dict[str, int]) -> bytes:
    return sse(
        {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [],
            "usage": usage_wire(usage),
        }
    )


def sse(value: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


DONE = b"data: [DONE]\n\n"
