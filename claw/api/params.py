"""RPC parameters as pydantic models, checked where a call arrives.

Every RPC method declares what it takes as a `Params` model and is wrapped with `takes`:

    class HistoryParams(SessionParams):
        limit: Number = 200

    @takes(HistoryParams)
    async def chat_history(gw: ApiHost, params: HistoryParams) -> dict[str, Any]: ...

`takes` turns that into a `Method` (the gateway and the raw params dict, as `Gateway.call_method`
calls it in-process and for the WebSocket server alike). A capability's methods take what they are
bound to first (`partial(memory_search, manager)`); `takes` hands on every leading argument as is.

Parameters are camelCase on the wire (`session_key` is `sessionKey`); keys a model does not name are
ignored, since other clients (OpenClaw's) send fields of their own. Values are checked strictly, as
JSON types: `"5"` is not a number, `1` is not `true`. A call that does not fit gets ONE line, a
`UsageError` naming the parameter and what it should be (`missing parameter 'message' (a non-empty
string)`); the WebSocket server sends it as `INVALID_REQUEST`.

Keys starting with `_` are the gateway's own, never a client's: `Gateway.call_method` adds
`_channel`, the caller's channel, which a model carries as `caller_channel`, outside its fields.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
)
from pydantic.alias_generators import to_camel

from claw.errors import UsageError
from claw.paths import check_agent_id
from claw.vocab.session_keys import InvalidSessionKey, agent_of, normalize_session_key

CHANNEL_KEY = "_channel"
"""The key `Gateway.call_method` adds to a call's params: the channel of the client that called."""

P = TypeVar("P", bound=BaseModel)
R = TypeVar("R")
_SHOWN_CHARS = 40


class Params(BaseModel):
    """The base of every method's parameters: camelCase wire names, unknown keys ignored, JSON types."""

    model_config = ConfigDict(alias_generator=to_camel, extra="ignore", frozen=True, strict=True)

    _caller_channel: str = PrivateAttr(default="cli")

    @property
    def caller_channel(self) -> str:
        """The channel of the client that called (`cli`, `tui`, `ws`, `http` …), set by the gateway."""
        return self._caller_channel


class NoParams(Params):
    """A method that takes no parameters (any sent are ignored)."""


class ClosedParams(Params):
    """OpenClaw's closed params objects: a key the model does not name is refused, not ignored, and every
    problem reads as OpenClaw's own (`invalid cron.add params: at root: unexpected property 'x'`; the
    gateway adds the method's name, `ClosedParamsError`)."""

    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", frozen=True, strict=True)


class ClosedParamsError(UsageError):
    """Bad parameters of a `ClosedParams` method; `Gateway.call_method` words it as OpenClaw does."""


# --- shared field types -------------------------------------------------------------------------
# Each carries a `description`: the "what is expected" of the error line (a field may give its own).


def _empty_is_none(value: Any) -> Any:
    return None if value == "" else value


def _none_is_false(value: Any) -> Any:
    return False if value is None else value


def _none_or_empty_is_main(value: Any) -> Any:
    return "main" if value is None or value == "" else value


def _agent_id(value: str) -> str:
    try:
        return check_agent_id(value)
    except UsageError:
        raise ValueError(f"{value[:64]!r} is not an agent id (1-64 of a-z, 0-9, '_' or '-')") from None


def _session_key(value: str, agent_id: str = "main") -> str:
    try:
        return normalize_session_key(value, agent_id)
    except InvalidSessionKey as exc:
        raise ValueError(exc.detail) from None


def _session_key_under_agent(value: str, info: ValidationInfo) -> str:
    return _session_key(value, info.data.get("agent_id", "main"))


NonEmptyStr = Annotated[str, Field(pattern=r"\S", description="a non-empty string")]
OptionalStr = Annotated[str | None, BeforeValidator(_empty_is_none), Field(description="a string")]
"""A string, or absent: null and "" both mean "not given"."""
AgentId = Annotated[
    str, BeforeValidator(_none_or_empty_is_main), AfterValidator(_agent_id), Field(description="an agent id")
]
"""An agent id; absent, null or "" is `main`. Whether the agent is configured is the method's to check."""
SessionKey = Annotated[str, AfterValidator(_session_key), Field(description="a session key, e.g. agent:main:main")]
"""A session key, normalised (a bare key is under the main agent) and checked (`check_session_key`)."""
AgentSessionKey = Annotated[
    str, AfterValidator(_session_key_under_agent), Field(description="a session key, e.g. agent:main:main or main")
]
"""`SessionKey`, but a bare key is under the model's `agent_id` (a field declared before this one)."""
OptionalAgentSessionKey = Annotated[AgentSessionKey | None, BeforeValidator(_empty_is_none)]
"""`AgentSessionKey`, or absent: null and "" both mean "not given"."""
Flag = Annotated[bool, BeforeValidator(_none_is_false), Field(description="true or false")]
Number = Annotated[float, Field(description="a number")]
NonNegativeNumber = Annotated[float, Field(ge=0, description="a number >= 0")]
NonNegativeInt = Annotated[int, Field(ge=0, description="a whole number >= 0")]
PositiveInt = Annotated[int, Field(ge=1, description="a whole number >= 1")]
Milliseconds = Annotated[float, Field(ge=0, description="milliseconds, a number >= 0")]


class AgentParams(Params):
    """Parameters of a method that acts on one agent (`agentId`, default `main`)."""

    agent_id: AgentId = "main"


class SessionParams(AgentParams):
    """Parameters naming one session: `sessionKey` (absent, null or "": `main`), a bare key being under
    `agentId`. `session_key` is normalised and checked; `session_agent` is the agent it belongs to, the
    one to act on (`agent:ops:main` with no `agentId` is the ops agent's).

    OpenClaw's `sessions.*` methods name the session `key` (its `chat.*` ones `sessionKey`): either is
    taken, so every session method reads the same whichever of OpenClaw's clients calls it."""

    session_key: Annotated[AgentSessionKey, BeforeValidator(_none_or_empty_is_main)] = Field(
        "main", validate_default=True, validation_alias=AliasChoices("sessionKey", "key")
    )

    @property
    def session_agent(self) -> str:
        return agent_of(self.session_key)


# --- from a Method's raw params to a model ------------------------------------------------------


def parse_params(model: type[P], raw: Mapping[str, Any]) -> P:
    """`raw` (a call's params, `_channel` included) checked against `model`; UsageError, one line, if not."""
    if not isinstance(raw, Mapping):
        raise UsageError(f"parameters must be an object, got {_shown(raw)}")
    fields = {key: value for key, value in raw.items() if not key.startswith("_")}
    try:
        params = model.model_validate(fields)
    except ValidationError as exc:
        problem = _usage_error(model, fields, exc)
        if issubclass(model, ClosedParams):
            raise ClosedParamsError(problem.message) from None
        raise problem from None
    if isinstance(params, Params):
        params._caller_channel = str(raw.get(CHANNEL_KEY) or "cli")
    return params


def takes(model: type[P]) -> Callable[[Callable[..., Awaitable[R]]], Callable[..., Awaitable[R]]]:
    """Decorate `async def method(*bound, gw, params: model)` into a `Method` (`*bound, gw, raw dict`).

    The wrapper keeps the model as `params_model`, so a test can check that every method has one."""

    def wrap(fn: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
        @functools.wraps(fn)
        async def method(*args: Any) -> R:
            *leading, raw = args
            return await fn(*leading, parse_params(model, raw))

        method.params_model = model  # type: ignore[attr-defined]
        return method

    return wrap


def _usage_error(model: type[BaseModel], fields: Mapping[str, Any], exc: ValidationError) -> UsageError:
    """The first problem as one line: what the parameter is called on the wire and what it should be."""
    err = exc.errors(include_url=False)[0]
    if not err["loc"]:
        return UsageError(f"invalid parameters: {err['msg']}")
    name = str(err["loc"][0])
    if err["type"] == "extra_forbidden":
        where = "at root" if len(err["loc"]) == 1 else "at /" + "/".join(map(str, err["loc"][:-1]))
        return UsageError(f"{where}: unexpected property {str(err['loc'][-1])!r}"
                          if issubclass(model, ClosedParams) else f"unknown parameter {name!r}")  # fmt: skip
    if err["type"] == "value_error":  # one of our validators: its message says what is wrong
        return UsageError(f"invalid parameter {name!r}: {err['ctx']['error']}")
    fields_ = model.model_fields.items()
    by_wire_name = {name: info for python_name, info in fields_ for name in _wire_names(python_name, info)}
    field = by_wire_name.get(name)
    expected = field.description if field is not None and field.description else _lower_first(err["msg"])
    if err["type"] == "missing":
        return UsageError(f"missing parameter {name!r} ({expected})")
    got = fields[name] if name in fields else err["input"]  # a list's bad item: show the whole list
    return UsageError(f"invalid parameter {name!r} ({expected}), got {_shown(got)}")


def _wire_names(python_name: str, info: Any) -> list[str]:
    """The names a field is sent under: its alias, and each of its `AliasChoices` (`sessionKey`, `key`)."""
    names = [info.alias or python_name]
    if isinstance(info.validation_alias, AliasChoices):
        names += [choice for choice in info.validation_alias.choices if isinstance(choice, str)]
    return names


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _shown(value: Any) -> str:
    """`value` as the client sent it (JSON), cut short."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "…"
