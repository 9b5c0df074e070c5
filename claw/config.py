"""Settings: built-in defaults < config.toml `[agents.defaults]` < `[agents.list.<id>]` < flags.

config.toml is untrusted input, so it is validated with pydantic; a bad value is
reported as one line naming the key, the file and what was expected.
Keys are camelCase in the file (as OpenClaw writes them), snake_case in Python.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from claw.errors import ConfigError
from claw.paths import Paths, check_agent_id
from claw.redact import is_secret_key, redact_urls
from claw.settings.automations import AutomationSettings
from claw.settings.channels import ChannelsSettings
from claw.settings.hooks import HooksSettings
from claw.settings.mcp import McpSettings
from claw.settings.memory import MemorySettings
from claw.settings.sandbox import SandboxSettings
from claw.settings.skills import SkillsSettings
from claw.settings.subagents import SubagentSettings
from claw.settings.usage import ModelPrice, UsageSettings
from claw.settings_base import BindHost, FolderPath, HttpUrl, ModelRefText, Origin, Section

_M = TypeVar("_M", bound=BaseModel)

# Upper bounds, generous on purpose: they exist so that a typo (an extra digit or ten) is an error
# here, not an overflow or an allocation of gigabytes inside the running gateway.
_DAY = 86_400.0
_MAX_TOKENS = 100_000_000
_MAX_CHARS = 100_000_000
_MAX_REQUEST_BYTES = 1024 * 1024 * 1024
_MAX_MB = 16 * 1024 * 1024  # 16 TiB
PRICES_KEY = "modelPrices"


class ModelRefs(Section):
    """A primary model ref (`provider/model`) and the refs to fail over to, in order."""

    primary: ModelRefText | None = None
    """The model tried first: `provider/model`, or a bare name for the `openai` provider."""
    fallbacks: tuple[ModelRefText, ...] = ()
    """Tried in order when the one before fails with a rate limit, a 5xx error, a timeout or a connection failure."""

    def chain(self) -> list[str]:
        refs = [self.primary, *self.fallbacks] if self.primary else list(self.fallbacks)
        return list(dict.fromkeys(refs))


class ExecSettings(Section):
    """Policy for the `exec` tool: what may run, and when to ask first."""

    security: Literal["deny", "allowlist", "full"] = "allowlist"
    """`deny`: no command runs; `allowlist`: a command runs unasked only if every part of its chain is allowed;
    `full`: every command may run."""
    ask: Literal["off", "on-miss", "always"] = "on-miss"
    """When to ask the user: `on-miss`, for a command the allowlist does not cover; `always`; `off`, never."""
    ask_fallback: Literal["deny", "allowlist", "full"] = "deny"
    """What applies when there is nobody to ask (`--json`, no terminal, a channel)."""
    timeout_seconds: float = Field(default=120.0, gt=0, le=_DAY)
    """Wall-clock limit of one command, in seconds."""
    max_output_chars: int = Field(default=200_000, ge=1000, le=_MAX_CHARS)
    """The most of a command's output its result keeps (also bounded by the per-result limit)."""
    allowlist: tuple[str, ...] = ()
    """Globs over resolved binary paths (`/usr/bin/git`, `/opt/tools/*`); each allows its binary's plain use,
    never forms that run other programs (`git -c`, `find -exec`): those need an exact-command approval."""
    default_allowlist: bool = True
    """Run the read-only commands of claw/tools/default_allowlist.py (`ls`, `cat`, `grep`…) unasked while
    their paths stay inside the workspace."""
    max_processes: int = Field(default=256, ge=0, le=1_000_000)
    """Processes (threads included) one command may run at once, beyond those the user already runs; 0: no
    limit. A gateway running as root needs a pids cgroup it can make for this (the kernel spares root)."""
    max_memory_mb: int = Field(default=4096, ge=0, le=_MAX_MB)
    """Memory one process of a command may allocate (RLIMIT_DATA, in MiB); 0: no limit."""
    max_file_size_mb: int = Field(default=4096, ge=0, le=_MAX_MB)
    """The largest file one command may write (RLIMIT_FSIZE, in MiB); 0: no limit."""
    max_cpu_seconds: int = Field(default=600, ge=0, le=int(_DAY))
    """CPU time one process of a command may use (RLIMIT_CPU, seconds); then SIGXCPU, and SIGKILL a second
    later; 0: no limit. The wall-clock limit is `timeoutSeconds`."""
    pass_env: tuple[str, ...] = ()
    """Variables of claw's environment that commands get besides the defaults (PATH, HOME, USER, SHELL, TERM,
    LOGNAME, LANG, LANGUAGE, TZ, LC_*). A name is passed as it is; a glob (`GIT_*`) passes only what matches
    and looks like no secret (`*_TOKEN`, `*_KEY`, `*_SECRET`, `*PASSWORD*`, `*_AUTH`, `DATABASE_URL`, a URL
    with a user and password …). See claw/tools/exec_env.py."""

    @field_validator("pass_env")
    @classmethod
    def _pass_env_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            if not re.fullmatch(r"[A-Za-z_*?\[\]!][A-Za-z0-9_*?\[\]!]*", entry):
                raise ValueError(f"{entry!r} is not a variable name or a glob of names (like GIT_*)")
        return value


class SessionToolSettings(Section):
    """What `sessions_list`, `sessions_history` and `sessions_send` may reach."""

    visibility: Literal["agent", "tree"] = "agent"
    """`agent`: every session of the caller's agent; `tree`: only the caller's session and those it spawned
    (always the rule for a message from a sender who is not authorised)."""
    allow_agents: tuple[str, ...] = ()
    """Other agents whose sessions may be reached too; `*` for all. Default: the caller's own agent only."""
    search: Literal["local", "all", "off"] = "local"
    """Where `sessions_search` (the agent searching its past conversations) is offered: `local`, sessions the
    operator talks in from the CLI and the console; `all`, channel sessions too; `off`, nowhere."""


class FileToolSettings(Section):
    """What `read`, `write` and `edit` may open besides plain files inside the workspace."""

    allow_hardlinks: bool = False
    """Open workspace files that have more than one hard link. Off: such a file may be a second name for a
    file outside the workspace (`ln ../secret hard`), which no path check can tell apart."""


class ToolSettings(Section):
    exec: ExecSettings = ExecSettings()
    files: FileToolSettings = FileToolSettings()
    sessions: SessionToolSettings = SessionToolSettings()
    result_max_chars: int | None = Field(
        default=None, ge=1000, le=_MAX_CHARS, description="cap on one tool result; default from the context window"
    )


class MemoryFlushSettings(Section):
    """The silent turn before compaction that asks the model to write lasting notes to memory/YYYY-MM-DD.md."""

    enabled: bool = True
    soft_threshold_tokens: int = Field(default=4_000, ge=0)
    """The flush runs once the prompt is within this many tokens of the compaction threshold."""


class CompactionSettings(Section):
    """Summarising older history when the prompt would not fit the model's window."""

    enabled: bool = True
    keep_recent_tokens: int = Field(default=20_000, ge=0)
    """The newest history kept verbatim (never more than half of what the window leaves for history)."""
    model: ModelRefText | None = None
    """Model ref for summaries; default: the session's model chain."""
    memory_flush: MemoryFlushSettings = MemoryFlushSettings()


class PruningSettings(Section):
    """Shrinking old tool results in the prompt only (the transcript keeps them whole)."""

    enabled: bool = True
    keep_last_assistants: int = Field(default=3, ge=0)
    soft_trim_ratio: float = Field(default=0.3, ge=0, le=1)
    hard_clear_ratio: float = Field(default=0.5, ge=0, le=1)
    soft_trim_max_chars: int = Field(default=4_000, ge=200)
    min_prunable_chars: int = Field(default=50_000, ge=0)


class AgentSettings(Section):
    """Everything about how one agent runs. Unset keys inherit from `[agents.defaults]`."""

    model: ModelRefs = ModelRefs()
    workspace: FolderPath | None = None
    max_concurrent: int = Field(default=4, ge=1, le=256)
    """Turns that run at once across sessions (the main lane; read from `[agents.defaults]`)."""
    timeout_seconds: float = Field(default=600.0, gt=0, le=7 * _DAY)
    """Wall-clock limit of one run, in seconds."""
    context_tokens: int = Field(default=128_000, ge=1024, le=_MAX_TOKENS)
    """When set, caps the window the prompt is budgeted against (otherwise the model's configured or known window)."""
    reserve_tokens: int = Field(default=8_000, ge=0, le=_MAX_TOKENS)
    """Tokens of the window kept free for the reply."""
    max_tool_rounds: int = Field(default=40, ge=1, le=10_000)
    """Model calls one run may make (each with the tool calls it asks for)."""
    bootstrap_max_chars: int = Field(default=20_000, ge=100, le=_MAX_CHARS)
    """Each bootstrap file's share of the prompt (70 % head, 20 % tail, with a marker naming the file)."""
    bootstrap_total_max_chars: int = Field(default=150_000, ge=100, le=_MAX_CHARS)
    """All bootstrap files together."""
    tools: ToolSettings = ToolSettings()
    compaction: CompactionSettings = CompactionSettings()
    context_pruning: PruningSettings = PruningSettings()
    skills: tuple[str, ...] | None = None
    """Skill names this agent may use; unset means all, `[]` means none. An agent's list replaces the default's."""
    subagents: SubagentSettings = SubagentSettings()
    sandbox: SandboxSettings = SandboxSettings()
    """Where `exec` runs commands: bwrap sandbox `mode`, `network`, extra `binds` (claw/settings/sandbox.py)."""

    @field_validator("model", mode="before")
    @classmethod
    def _model_from_string(cls, value: Any) -> Any:
        return {"primary": value} if isinstance(value, str) else value


class ProviderSettings(Section):
    """An OpenAI-compatible endpoint. Unset fields fall back to the `openai` client's own env vars."""

    base_url: HttpUrl | None = None
    """The endpoint's OpenAI-compatible URL (`…/v1`); built-in provider names know their usual local one."""
    api_key: str | None = None
    """The key itself (masked by `claw config get`); `apiKeyEnv` keeps it out of the file."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key."""
    timeout_seconds: float = Field(default=120.0, gt=0, le=_DAY)
    """The `openai` client's timeout for one request, in seconds."""
    max_retries: int = Field(default=0, ge=0, le=10)
    """The `openai` client's own retries of a failed request (fallbacks are claw's)."""
    reasoning_switch: Literal["auto", "effort", "openrouter", "ollama", "template", "none"] = "auto"
    """How `/think` asks this server for more or less reasoning (claw/providers/reasoning_switch.py); `auto`
    goes by the provider's name (ollama, vllm, llamacpp, openai, openrouter; others have none)."""


ToolCallFormat = Literal["auto", "native", "hermes", "qwen3_coder", "mistral", "llama", "pythonic", "json"]


class ModelSettings(Section):
    """Facts about one model, under `[models."provider/model"]`."""

    context_window: int | None = Field(default=None, ge=1024, le=_MAX_TOKENS)
    """Tokens the model accepts (prompt plus reply); unknown models are treated conservatively."""
    send_reasoning: bool = False
    """Give the model back the reasoning of its earlier replies (as `reasoning_content`); off, it is kept in
    the transcript only. For servers that require it; DeepSeek's rejects it (claw/agent/reasoning_replay.py)."""
    tool_call_format: ToolCallFormat = "auto"
    """How the model's tool calls arrive: `native` (`tool_calls` only), `auto` (also calls written as text,
    detected from the stream) or one text format (claw/providers/text_tools/calls.py `FORMATS`)."""


class SessionSettings(Section):
    dm_scope: Literal["main", "per-peer", "per-channel-peer", "per-account-channel-peer"] = "main"
    """Which session a direct message joins: `main`, the agent's main session (one person, one conversation);
    the others give each sender their own (per peer, per channel and peer, per account, channel and peer)."""


QueueMode = Literal["steer", "followup", "collect", "interrupt"]
QueueDrop = Literal["summarize", "old", "new"]


class QueueSettings(Section):
    """What a message does when its session is already busy (`/queue` overrides per session)."""

    mode: QueueMode = "followup"
    """`followup`: it runs as its own turn after the current one; `collect`: messages merge into one turn after a
    quiet window; `steer`: it joins the running turn at its next model call; `interrupt`: the running turn is
    aborted and it runs."""
    debounce_ms: int = Field(default=1000, ge=0, le=3_600_000)
    """`collect`'s quiet window, in ms."""
    cap: int = Field(default=20, ge=1, le=10_000)
    """Turns that may wait per session."""
    drop: QueueDrop = "summarize"
    """Past the cap: `old` drops the oldest, `summarize` drops it with a summary handed to the next turn, `new`
    refuses the new message."""
    by_channel: dict[str, QueueMode] = {}
    """The mode per channel, over `mode`."""


class MessagesSettings(Section):
    queue: QueueSettings = QueueSettings()


class Binding(Section):
    """Routes messages that match every given field to `agent_id`."""

    agent_id: str
    """The agent that gets the messages this binding matches (the most specific match wins: peer, then group,
    guild/team, account, channel; messages nothing matches go to `main`)."""
    channel: str | None = None
    """Match messages from this channel platform (`telegram`, `slack` …)."""
    account_id: str | None = None
    """Match messages to this account of the platform."""
    peer_id: str | None = None
    """Match direct messages from this sender."""
    group_id: str | None = None
    """Match messages in this group."""
    guild_id: str | None = None
    """Match messages in this Discord guild."""
    team_id: str | None = None
    """Match messages in this Slack team."""


class ControlUiSettings(Section):
    """`[gateway.controlUi]`: OpenClaw's Control UI, served from claw's port."""

    root: FolderPath | None = None
    """A Control UI build (the `dist/control-ui/` folder of OpenClaw's npm package) served at `/`; unset, `/`
    leads to claw's own web chat at `/chat/`."""


class GatewaySettings(Section):
    """`claw gateway run`: where it listens and the limits of its WebSocket and HTTP server."""

    bind: BindHost = "127.0.0.1"
    """The address to listen on; anything but loopback refuses to start without a token."""
    port: int = Field(default=18789, ge=0, le=65535)
    """The port of the WebSocket, the HTTP API and the channels' webhooks (0: any free port)."""
    allowed_origins: tuple[Origin, ...] = ()
    """Browser origins (exact, e.g. `http://localhost:5173`) that may connect; other browser pages are refused."""
    max_payload_bytes: int = Field(default=25 * 1024 * 1024, ge=64 * 1024, le=_MAX_REQUEST_BYTES)
    """Largest WebSocket frame after the handshake (before it: 64 KiB); 25 MiB as in OpenClaw."""
    max_body_bytes: int = Field(default=20 * 1024 * 1024, ge=1024, le=_MAX_REQUEST_BYTES)
    """Largest HTTP request body (`/v1/chat/completions`)."""
    handshake_timeout_seconds: float = Field(default=10.0, gt=0, le=600)
    """A connection that has not sent a full HTTP request (its headers) or, on the WebSocket, its `connect`
    within this time is closed, so sockets that dribble bytes cannot pile up; the owner is served meanwhile."""
    shutdown_grace_seconds: float = Field(default=10.0, ge=0, le=3600)
    """On SIGINT/SIGTERM, how long running turns may take to finish before they are aborted."""
    control_ui: ControlUiSettings = ControlUiSettings()


class AgentsSection(Section):
    defaults: dict[str, Any] = {}
    list: dict[str, dict[str, Any]] = {}


class ConfigFile(Section):
    """The shape of config.toml. Agent sections stay raw dicts so that inheritance merges keys, not objects."""

    agents: AgentsSection = AgentsSection()
    providers: dict[str, ProviderSettings] = {}
    session: SessionSettings = SessionSettings()
    messages: MessagesSettings = MessagesSettings()
    bindings: tuple[Binding, ...] = ()
    gateway: GatewaySettings = GatewaySettings()
    automations: AutomationSettings = AutomationSettings()
    skills: SkillsSettings = SkillsSettings()
    memory: MemorySettings = MemorySettings()
    models: dict[str, ModelSettings] = {}
    channels: ChannelsSettings = ChannelsSettings()
    hooks: HooksSettings = HooksSettings()
    mcp: McpSettings = McpSettings()
    usage: UsageSettings = UsageSettings()
    model_prices: dict[str, ModelPrice] = {}
    """`[models.prices."provider/model"]`, moved here on load so `models` keeps one kind of entry."""

    @model_validator(mode="before")
    @classmethod
    def _split_prices(cls, raw: Any) -> Any:
        models = raw.get("models") if isinstance(raw, dict) else None
        if isinstance(models, dict) and "prices" in models:
            rest = {key: value for key, value in models.items() if key != "prices"}
            return {**raw, "models": rest, PRICES_KEY: models["prices"]}
        return raw


class Config:
    """The loaded configuration, able to produce the effective settings of any agent."""

    def __init__(self, file: ConfigFile, *, path: Path, environ: dict[str, str] | None = None) -> None:
        self.file = file
        self.path = path
        self._env = dict(os.environ if environ is None else environ)
        for agent_id in file.agents.list:
            check_agent_id(agent_id)
        for i, binding in enumerate(file.bindings):
            if binding.agent_id != "main" and binding.agent_id not in file.agents.list:
                raise ConfigError(
                    f"{path}: bindings[{i}].agentId: unknown agent {binding.agent_id!r}; "
                    f"add [agents.list.{binding.agent_id}] or bind to a configured agent"
                )
        self._defaults = _validate(AgentSettings, dict(file.agents.defaults), path, "agents.defaults")
        self._agents: dict[str, AgentSettings] = {}
        for agent_id in ("main", *file.agents.list):
            self._agents[agent_id] = self._build_agent(agent_id)

    @property
    def defaults(self) -> AgentSettings:
        """`[agents.defaults]` alone: settings that are gateway-wide, such as the global lane's size."""
        return self._defaults

    @property
    def agent_ids(self) -> list[str]:
        return list(self._agents)

    @property
    def providers(self) -> dict[str, ProviderSettings]:
        return self.file.providers

    @property
    def session(self) -> SessionSettings:
        return self.file.session

    @property
    def bindings(self) -> tuple[Binding, ...]:
        return self.file.bindings

    @property
    def gateway(self) -> GatewaySettings:
        return self.file.gateway

    @property
    def automations(self) -> AutomationSettings:
        return self.file.automations

    @property
    def memory(self) -> MemorySettings:
        return self.file.memory

    @property
    def models(self) -> dict[str, ModelSettings]:
        return self.file.models

    @property
    def skills(self) -> SkillsSettings:
        return self.file.skills

    @property
    def channels(self) -> ChannelsSettings:
        return self.file.channels

    @property
    def hooks(self) -> HooksSettings:
        return self.file.hooks

    @property
    def mcp(self) -> McpSettings:
        return self.file.mcp

    @property
    def usage(self) -> UsageSettings:
        return self.file.usage

    @property
    def model_prices(self) -> dict[str, ModelPrice]:
        """Prices from `[models.prices."provider/model"]` (claw/usage/prices.py adds the shipped ones)."""
        return self.file.model_prices

    def agent(self, agent_id: str = "main") -> AgentSettings:
        try:
            return self._agents[agent_id]
        except KeyError:
            known = ", ".join(self._agents)
            raise ConfigError(
                f"unknown agent {agent_id!r} (configured: {known}); add it under [agents.list.{agent_id}]"
            ) from None

    def _build_agent(self, agent_id: str) -> AgentSettings:
        merged = dict(self.file.agents.defaults)
        env_model = self._env.get("CLAW_MODEL")
        if env_model:
            merged["model"] = _merge_model(merged.get("model"), env_model)
        merged = _deep_merge(merged, self.file.agents.list.get(agent_id, {}))
        section = "agents.defaults" if agent_id not in self.file.agents.list else f"agents.list.{agent_id}"
        return _validate(AgentSettings, merged, self.path, section)


def load_config(paths: Paths, environ: dict[str, str] | None = None) -> Config:
    """Read and validate config.toml; a missing file means all defaults."""
    raw = read_config_dict(paths.config_file)
    file = _validate(ConfigFile, raw, paths.config_file, "")
    return Config(file, path=paths.config_file, environ=environ)


def read_config_dict(path: Path) -> dict[str, Any]:
    """config.toml parsed but not yet validated (empty when there is no file); errors name the file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    return parse_config_text(decode_config(data, path), path)


def decode_config(data: bytes, path: Path) -> str:
    """The file's text; bytes that are not UTF-8 (TOML's only encoding) are an error naming where they are."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); save it as UTF-8"
        ) from None


def parse_config_text(text: str, path: Path) -> dict[str, Any]:
    """TOML text as a dict, refusing what TOML itself forbids but tomllib lets through (integers beyond 64 bits)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the file or move it aside") from None
    _check_integers(raw, path, ())
    return raw


_INT64 = range(-(2**63), 2**63)


def _check_integers(value: Any, path: Path, loc: tuple[str | int, ...]) -> None:
    # TOML integers are 64-bit ("an error must be thrown" beyond that); tomllib returns any size.
    if isinstance(value, dict):
        for key, inner in value.items():
            _check_integers(inner, path, (*loc, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _check_integers(inner, path, (*loc, index))
    elif isinstance(value, int) and not isinstance(value, bool) and value not in _INT64:
        raise ConfigError(f"{path}: {format_key(loc)}: {value} is beyond TOML's 64-bit integer range")


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def format_key(loc: tuple[str | int, ...] | list[str | int]) -> str:
    """A key path as the file would spell it: `agents.list.work.model`, `bindings[0]`, `hooks."../x"`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part not in ("", "[key]"):  # pydantic marks a bad dict key with a `[key]` step
            shown = part if _BARE_KEY.match(part) else json.dumps(part, ensure_ascii=False)
            out += f".{shown}" if out else shown
    return out


def validate_config_dict(raw: dict[str, Any], path: Path) -> None:
    """Raise ConfigError if `raw` would not load, including every agent's merged settings."""
    Config(_validate(ConfigFile, raw, path, ""), path=path, environ={})


def _merge_model(current: Any, env_model: str) -> Any:
    if isinstance(current, dict):
        return {**current, "primary": env_model}
    return env_model


def _deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _validate(model: type[_M], raw: dict[str, Any], path: Path, section: str) -> _M:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [*section.split("."), *err["loc"]]
        if PRICES_KEY in loc:  # where the file has it: models.prices (see ConfigFile._split_prices)
            at = loc.index(PRICES_KEY)
            loc[at : at + 1] = ["models", "prices"]
        key = format_key(loc)
        got = err.get("input")
        detail = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            detail = "unknown key"
        elif not isinstance(got, dict) and not any(isinstance(p, str) and is_secret_key(p) for p in loc):
            detail = f"{detail} (got {_shown(got)})"  # a bad secret is named, never echoed
        raise ConfigError(f"{path}: {key}: {detail}") from None


def _shown(value: Any, limit: int = 80) -> str:
    text = redact_urls(repr(value))
    return text if len(text) <= limit else f"{text[: limit - 1]}…"
