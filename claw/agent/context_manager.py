"""`ContextManager`: builds each model call's prompt and keeps it inside the model's window.

Before every model call (`prepare`): the history is read, old tool results are pruned in
the prompt, and the prompt's full size is compared with `window − reserve`. A few thousand
tokens before that limit the memory flush runs (once per compaction cycle); past it, the
older history is compacted and the prompt built again. `compact(turn, "overflow")` is the same
compaction, with a smaller verbatim tail, for a model that answered with a context-overflow
error (the runner then retries the call once); `/compact` uses it with reason "manual".
Counters live in the session entry's `extra`: `compactionCount`, `memoryFlushCompactionCount`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from claw.agent.bootstrap import BootstrapFile, BootstrapLoader
from claw.agent.compaction import CompactionResult, compact, plan
from claw.agent.context import AssembledContext, assemble, join_parts, system_parts
from claw.agent.history import HistoryView
from claw.agent.memory_flush import fit_messages, flush_memory
from claw.agent.pruning import prune_units
from claw.agent.reasoning_replay import sends_reasoning
from claw.agent.run_scope import SUBAGENT_BOOTSTRAP_FILES
from claw.agent.small_window import SMALL_WINDOW, TOOL_SEARCH, cap_files, cap_section, is_small, small_tools
from claw.agent.token_ratios import TokenRatios
from claw.agent.tokens import CHARS_PER_TOKEN, chars_per_token, counting_at, json_text
from claw.agent.turn import Turn
from claw.agent.windows import context_window, model_window
from claw.config import AgentSettings, ModelSettings
from claw.errors import ClawError
from claw.providers.base import ModelError
from claw.providers.failover import ModelRouter
from claw.providers.metering import call_source
from claw.providers.ollama_options import is_ollama, num_ctx_body
from claw.providers.openai_compat import KEYLESS_PROVIDERS, endpoint
from claw.providers.refs import ModelRef
from claw.providers.server_window import probe_window, server_root
from claw.safe_read import READ_TIMEOUT
from claw.store.transcript import Transcript, utc_now_iso
from claw.tools.base import ToolContext
from claw.tools.registry import ToolRegistry
from claw.vocab import run_event
from claw.vocab.run_event import Stream
from claw.vocab.session_keys import is_subagent_key

if TYPE_CHECKING:
    from claw.store.sessions import SessionEntry, SessionStore

log = logging.getLogger(__name__)

MAX_HISTORY_VIEWS = 256
KEEP_SHARE = {"threshold": 0.5, "manual": 0.5, "overflow": 0.25}
FLUSH_OVERHEAD_TOKENS = 700
"""The memory flush's request and its tools' schemas, on top of the prompt it is given."""
HOSTED_APIS = (
    "openai.com",
    "openrouter.ai",
    "anthropic.com",
    "googleapis.com",
    "groq.com",
    "together.xyz",
    "mistral.ai",
    "deepseek.com",
    "x.ai",
    "fireworks.ai",
)
"""Hosts of hosted APIs: never asked for a local server's window (they would 404 every probe, slowly)."""


class ContextManager:
    """Prompt assembly, pruning, memory flush and compaction for every agent of one gateway."""

    def __init__(
        self, router: ModelRouter, tools: ToolRegistry, models: Mapping[str, ModelSettings] | None = None
    ) -> None:
        self._router = router
        self._tools = tools
        self._models: Mapping[str, ModelSettings] = models or {}
        self._bootstrap = BootstrapLoader()
        self._subagent_bootstrap = BootstrapLoader(names=SUBAGENT_BOOTSTRAP_FILES)
        self._views: OrderedDict[str, HistoryView] = OrderedDict()
        # model ref → the window its server reported (None: it did not say). In memory, per gateway: a
        # local server's window changes when it is restarted with other settings, and a gateway asks once.
        self.server_windows: dict[str, int | None] = {}
        self.server_kinds: dict[str, str] = {}
        """Model ref → which server answered the window probe (`ollama`, `llamacpp`, `vllm`, `lmstudio`)."""
        self.ratios = TokenRatios()
        """Model ref → characters a token, as its server counts them."""
        self._probes: dict[tuple[str, str], tuple[int, str] | None] = {}
        """(server root, model) → what the probe found: asked once per endpoint and model."""

    # -- sizes --------------------------------------------------------------------------------

    def window(self, settings: AgentSettings, chain: list[str]) -> int:
        """The budget's window: config's `contextWindow`, else what the local server reported, else the table
        of known models or the default; `contextTokens` caps it."""
        ref = self._router.resolve(chain[0]) if chain else None
        reported = self.server_windows.get(str(ref)) if ref is not None else None
        if ref is not None and reported and model_window(ref, self._models)[1] != "config":
            if "context_tokens" in settings.model_fields_set:
                return min(reported, settings.context_tokens)
            return reported
        return context_window(ref, settings, self._models)

    async def discover_window(self, chain: list[str]) -> None:
        """Ask a local server (Ollama, llama.cpp, vLLM, LM Studio) for its window, once per endpoint and model per
        gateway, whatever the ref's provider; never when config gives the window, never a known hosted API."""
        if not chain:
            return
        ref = self._router.resolve(chain[0])
        key = str(ref)
        if key in self.server_windows:
            return
        if model_window(ref, self._models)[1] == "config":
            return
        base_url = self.server_url(ref)
        if base_url is None:
            return
        probe = (server_root(base_url), ref.model)  # two refs naming one server's model share its answer
        if probe not in self._probes:
            self._probes[probe] = await probe_window(base_url, ref.model)
        found = self._probes[probe]
        self.server_windows[key] = found[0] if found else None
        if found:
            self.server_kinds[key] = found[1]
            log.info("%s: the server (%s) reports a %d-token context window", key, found[1], found[0])

    def server_url(self, ref: ModelRef) -> str | None:
        """The base URL of `ref`'s server when it may be a local one worth asking for its window: any endpoint
        but a known hosted API's, whatever the provider (a bare `smollm2` with `OPENAI_BASE_URL` pointing at a
        llama.cpp server included)."""
        base_url = endpoint(ref.provider, self._router.provider_settings(ref.provider), os.environ)[0]
        if base_url is None and ref.provider == "openai":
            base_url = os.environ.get("OPENAI_BASE_URL") or None
        if base_url is None:
            return None
        host = (urlsplit(base_url).hostname or "").lower()
        hosted = any(host == name or host.endswith("." + name) for name in HOSTED_APIS)
        return None if hosted and ref.provider not in KEYLESS_PROVIDERS else base_url

    def is_local(self, ref: str | None) -> bool:
        """A model on a local server (Ollama, llama.cpp, vLLM, LM Studio): by its provider, or by what answered
        the window probe. Only these cut a prompt silently; a hosted API answers an over-long one with an error."""
        if not ref:
            return False
        model = self._router.resolve(ref)
        return model.provider in KEYLESS_PROVIDERS or str(model) in self.server_kinds

    def size_ollama(self, chain: list[str], window: int) -> None:
        """Have every request to an Ollama model of `chain` carry `num_ctx` = the budget's `window` (capped
        at what its server reported), so Ollama does not cut the prompt at its own default. Per model, not per
        agent: two agents that cap one model differently (`contextTokens`) send the window of the last prompt built."""
        for ref in chain:
            model = self._router.resolve(ref)
            key = str(model)
            if is_ollama(model.provider, self.server_kinds.get(key)):
                self._router.extra_bodies[ref] = num_ctx_body(window, self.server_windows.get(key))

    def reserve(self, settings: AgentSettings, window: int) -> int:
        """The reply's reserve, at most a quarter of the window (a small local model still gets a prompt)."""
        return min(settings.reserve_tokens, window // 4)

    def effective_settings(self, settings: AgentSettings, chain: list[str]) -> AgentSettings:
        """`settings` with `context_tokens` set to the model's window, so tool results are capped to fit it."""
        return settings.model_copy(update={"context_tokens": self.window(settings, chain)})

    # -- building the prompt --------------------------------------------------------------------

    async def build(self, turn: Turn) -> AssembledContext:
        """The prompt for the turn's next model call: in small-window mode when the window is small, its tokens
        counted at the ratio the model's server measured (`calibrate`)."""
        settings, workspace = turn.env.settings, turn.env.workspace
        entries = turn.transcript.read_cached()
        if entries is None:  # changed behind our back (or first read): parse off the loop
            entries = await asyncio.to_thread(turn.transcript.read)
        files = turn.bootstrap  # the run's files once its agent:bootstrap hooks changed them
        if files is None:
            files = await self.load_bootstrap(settings, workspace, turn.session_key)
        await self.discover_window(turn.chain)
        window = self.window(settings, turn.chain)
        small = is_small(window) or turn.squeeze
        extra = turn.extra
        loaded = files  # as loaded: the sample below is the uncapped prompt
        await self.calibrate(turn.chain, lambda: join_parts(self._parts(turn, loaded, extra)) + json_text(turn.tools))
        ratio = self.ratio(turn.chain)
        counting_at(ratio[0] if ratio else CHARS_PER_TOKEN)
        tools = turn.tools
        if small:
            shape = min(window, SMALL_WINDOW)  # a squeezed prompt of a larger window is held to small-window shares
            files = cap_files(files, shape)
            extra = [(name, cap_section(name, text, shape)) for name, text in extra or ()]
            tools = small_tools(tools, shape, self._tools.schema_of(TOOL_SEARCH))
        view = self.view(turn.transcript, self.sends_reasoning(turn.chain))
        view.update(entries)
        self.size_ollama(turn.chain, window)
        units = prune_units(view.units, window, settings.context_pruning)
        return assemble(
            system_parts=self._parts(turn, files, extra, small=small),
            units=units,
            tools=tools,
            window_tokens=window,
            reserve_tokens=self.reserve(settings, window),
            mode="small" if small else "full",
            counting=ratio[1] if ratio else "estimate",
        )

    @staticmethod
    def _parts(
        turn: Turn, files: list[BootstrapFile], extra: list[tuple[str, str]] | None, *, small: bool = False
    ) -> list[tuple[str, str]]:
        return system_parts(
            workspace=turn.env.workspace,
            agent_id=turn.agent_id,
            session_key=turn.session_key,
            bootstrap=files,
            extra=extra,
            small=small,
        )

    # -- counting tokens ------------------------------------------------------------------------

    def ratio(self, chain: list[str]) -> tuple[float, str] | None:
        """(characters a token, `tokenizer` or `usage`) measured for the chain's first model, if any."""
        return self.ratios.get(self._key(chain))

    def _key(self, chain: list[str]) -> str:
        return str(self._router.resolve(chain[0])) if chain else ""

    async def calibrate(self, chain: list[str], sample: Callable[[], str]) -> None:
        """Measure the chain's first model's characters a token with its server's tokenizer (`TokenRatios`)."""
        key = self._key(chain)
        kind = self.server_kinds.get(key)
        if key and kind is not None:
            ref = self._router.resolve(chain[0])
            await self.ratios.measure(key, self.server_url(ref), ref.model, kind, sample)

    def calibrate_from_usage(self, ref: str, prompt: AssembledContext, prompt_tokens: int) -> None:
        """Take the model's ratio from a call's `usage.prompt_tokens` (`TokenRatios.from_usage`)."""
        self.ratios.from_usage(str(self._router.resolve(ref)), prompt, prompt_tokens)

    async def load_bootstrap(self, settings: AgentSettings, workspace: Path, session_key: str) -> list[BootstrapFile]:
        """The workspace's bootstrap files for a prompt of `session_key` (a subagent gets fewer), read in a
        thread under `READ_TIMEOUT`: a file on a stuck disk costs the prompt its bootstrap files, not the loop."""
        loader = self._subagent_bootstrap if is_subagent_key(session_key) else self._bootstrap  # openclaw-spec §4.2
        load = functools.partial(
            loader.load,
            workspace,
            settings.bootstrap_max_chars,
            settings.bootstrap_total_max_chars,
            allow_hardlinks=settings.tools.files.allow_hardlinks,
        )
        try:
            async with asyncio.timeout(READ_TIMEOUT):
                return await asyncio.to_thread(load)
        except TimeoutError:
            log.warning("skipped the bootstrap files of %s: reading them took over %gs", workspace, READ_TIMEOUT)
            return []

    async def prepare(self, turn: Turn, tool_ctx: ToolContext) -> AssembledContext:
        """`build`, with the memory flush and compaction run first when the prompt is near or over the limit;
        `tool_ctx` is what the flush's tool calls run with."""
        prompt = await self.build(turn)
        settings = turn.env.settings
        c = settings.compaction
        if not c.enabled:
            return prompt
        limit = prompt.window - self.reserve(settings, prompt.window)
        flush = c.memory_flush
        near = prompt.full_tokens > limit - flush.soft_threshold_tokens
        if flush.enabled and near and _flush_due(turn.env.sessions.get(turn.session_key)):
            await self._flush(turn, prompt, tool_ctx)
        if prompt.full_tokens > limit:
            try:
                done = await self.compact(turn, "threshold")
            except (ModelError, ClawError) as exc:
                log.warning("compaction of %s failed: %s; dropping the oldest history instead", turn.session_key, exc)
                return prompt
            if done is not None:
                prompt = await self.build(turn)
        return prompt

    # -- compaction -----------------------------------------------------------------------------

    async def compact(self, turn: Turn, reason: str, focus: str | None = None) -> CompactionResult | None:
        """Summarise the older history of the turn's session (None when there is nothing old enough to
        summarise). `reason`: threshold | overflow | manual; `focus`: what the summary should keep (`/compact`)."""
        settings, emit = turn.env.settings, turn.emit
        prompt = await self.build(turn)
        view = self.view(turn.transcript, self.sends_reasoning(turn.chain))
        pruned = prune_units(view.units, prompt.window, settings.context_pruning)
        fixed = prompt.full_tokens - sum(u.tokens for u in pruned)
        room = prompt.window - self.reserve(settings, prompt.window)
        keep = min(settings.compaction.keep_recent_tokens, int(max(0, room - fixed) * KEEP_SHARE[reason]))
        found = plan(pruned, keep)
        if found is None:
            return None
        emit(Stream.LIFECYCLE, run_event.compaction_started(reason, prompt.full_tokens))
        summarizer = settings.compaction.model
        chain_for_summary = list(dict.fromkeys([summarizer, *turn.chain])) if summarizer else turn.chain

        async def on_failover(from_ref: str, to_ref: str, error: ModelError) -> None:
            emit(Stream.LIFECYCLE, run_event.failover(from_ref, to_ref, error.message))

        try:
            with call_source("compaction", agent_id=turn.agent_id, session_key=turn.session_key):  # usage ledger
                result = await compact(
                    router=self._router,
                    chain=chain_for_summary,
                    transcript=turn.transcript,
                    plan_=found,
                    units=list(view.units),
                    tokens_before=prompt.full_tokens,
                    fixed_tokens=fixed,
                    room_tokens=room,
                    reason=reason,
                    focus=focus,
                    on_failover=on_failover,
                )
        except (ModelError, ClawError) as exc:
            emit(Stream.LIFECYCLE, run_event.compaction_failed(reason, str(exc)))
            raise
        await asyncio.to_thread(_bump_extra, turn.env.sessions, turn.session_key, compactionCount=1)
        emit(Stream.LIFECYCLE, run_event.compaction_ended(result.to_json()))
        return result

    # -- memory flush ---------------------------------------------------------------------------

    async def _flush(self, turn: Turn, prompt: AssembledContext, tool_ctx: ToolContext) -> None:
        key, sessions = turn.session_key, turn.env.sessions
        turn.emit(Stream.LIFECYCLE, run_event.memory_flush_started(prompt.full_tokens))
        wrote: str | None = None
        error: str | None = None
        try:
            with call_source("memory_flush", agent_id=turn.agent_id, session_key=key):  # usage ledger
                room = prompt.window - self.reserve(turn.env.settings, prompt.window) - FLUSH_OVERHEAD_TOKENS
                result = await flush_memory(
                    router=self._router,
                    chain=turn.chain,
                    messages=fit_messages(prompt.messages, room),  # never itself over the window
                    tools=self._tools,
                    tool_ctx=tool_ctx,
                )
            wrote = result.path
        except (ModelError, ClawError, OSError) as exc:  # the flush helps; it must never fail the turn
            error = str(exc)
            log.warning("memory flush for %s failed: %s", key, exc)
        entry = sessions.get(key)
        count = _int(entry.extra.get("compactionCount")) if entry else 0
        marks: dict[str, Any] = {"memoryFlushCompactionCount": count, "memoryFlushAt": utc_now_iso()}
        await asyncio.to_thread(_set_extra, sessions, key, marks)
        turn.emit(Stream.LIFECYCLE, run_event.memory_flush_ended(wrote, error))

    def sends_reasoning(self, chain: list[str]) -> bool:
        """Whether the session's model gets its earlier reasoning back (`sendReasoning`)."""
        return bool(chain) and sends_reasoning(self._router.resolve(chain[0]), self._models)

    def view(self, transcript: Transcript, send_reasoning: bool = False) -> HistoryView:
        """The transcript's history view; one per `send_reasoning` (its messages differ)."""
        # Its units' token counts are made at the run's ratio (claw/agent/tokens.py): one view per ratio.
        key = f"{transcript.path}{'+reasoning' if send_reasoning else ''}@{chars_per_token():.3f}"
        view = self._views.pop(key, None) or HistoryView(send_reasoning=send_reasoning)
        self._views[key] = view
        while len(self._views) > MAX_HISTORY_VIEWS:
            self._views.popitem(last=False)
        return view


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _flush_due(entry: SessionEntry | None) -> bool:
    """True unless a flush already ran in the current compaction cycle."""
    if entry is None:
        return True
    done = entry.extra.get("memoryFlushCompactionCount")
    return not isinstance(done, int) or done < _int(entry.extra.get("compactionCount"))


def _set_extra(sessions: SessionStore, key: str, values: dict[str, Any]) -> None:
    if sessions.get(key) is not None:
        sessions.merge_extra(key, values)


def _bump_extra(sessions: SessionStore, key: str, **increments: int) -> None:
    entry = sessions.get(key)
    if entry is not None:  # read-modify-write of counters: only one run per session at a time holds its lane
        values = {name: _int(entry.extra.get(name)) + by for name, by in increments.items()}
        sessions.merge_extra(key, {**values, "lastCompactionAt": utc_now_iso()})
