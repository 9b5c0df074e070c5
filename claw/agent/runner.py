"""The agent loop: assemble context → model (streamed) → tools → model … until a reply has no tool calls.

The transcript is written as the run goes (the user message first, then each
assistant message and tool result, and a streaming reply's text every few KB or
second), so a crash or an abort loses at most the line being written, and every
turn ends in the transcript even when the run fails or its process dies
(`claw/agent/turn_guard.py`). The runner emits `start`, assistant and tool events; the
gateway emits the one terminal lifecycle event from what `execute` returns or raises.
Everything a run's prompts are built from is put together once, as its `Turn`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from claw.agent.bootstrap import BootstrapFilter, filter_for_run
from claw.agent.context import AssembledContext
from claw.agent.context_manager import ContextManager
from claw.agent.env import AgentEnv
from claw.agent.model_turn import ModelTurn, ToolCall
from claw.agent.partial_reply import PartialReply
from claw.agent.run_request import RunRequest
from claw.agent.run_result import RunFailed, RunResult
from claw.agent.run_scope import RunScope, scope_of
from claw.agent.sections import PromptSectionSource, RunEnvSource, SectionRequest
from claw.agent.small_window import message_too_big
from claw.agent.text_calls import tool_call_format
from claw.agent.truncation_check import check_truncation
from claw.agent.turn import Emit, Turn
from claw.agent.turn_guard import TurnGuard
from claw.config import ModelSettings
from claw.errors import ClawError, NoModelError
from claw.providers.base import ModelError
from claw.providers.failover import ModelRouter
from claw.providers.metering import call_scope, run_scope
from claw.providers.reasoning_switch import think_level, thinking_at
from claw.store.transcript import Transcript
from claw.tools.base import Approvals, ToolContext, ToolResult
from claw.tools.registry import ToolRegistry
from claw.tools.sessions_search import search_denial
from claw.vocab import run_event
from claw.vocab.run_event import Stream

log = logging.getLogger(__name__)

ABORTED_RESULT = "[aborted: the run was stopped while this tool was running]"
EMPTY_AFTER_TOOLS = "the model sent an empty reply after the tool results; ask again, or try another model"
CUT_BEFORE_REPLY = (
    "the model's output limit was reached before it wrote a reply; raise the server's output limit "
    '(max tokens) or send "continue"'
)


class AgentRunner:
    """Runs turns for every agent of one gateway; shares the model router, tools and caches."""

    def __init__(
        self,
        router: ModelRouter,
        tools: ToolRegistry,
        approvals: Approvals,
        models: Mapping[str, ModelSettings] | None = None,
    ) -> None:
        self._router = router
        self._tools = tools
        self._models: Mapping[str, ModelSettings] = models or {}
        self._approvals = approvals
        self.sections: list[PromptSectionSource] = []
        """Extra system-prompt sections, rendered once per run in this order (memory, then skills)."""
        self.env_sources: list[RunEnvSource] = []
        """Asked once per run for variables the run's commands get (`ToolContext.skill_env`); the skills
        extension registers one. For a name two sources set, the one registered first wins."""
        self.bootstrap_filters: list[BootstrapFilter] = []
        """Applied once per run to the bootstrap files before they are injected (the agent:bootstrap hooks)."""
        self.context = ContextManager(router, tools, models)
        """Prompt assembly, pruning, memory flush and compaction (also used by /context and /compact)."""

    def model_chain(self, env: AgentEnv, override: str | None) -> list[str]:
        """The models to try, in order: a model the user named (`--model`, `/model`) alone, since
        answering with another one would be a surprise; else the agent's primary and fallbacks."""
        return [override] if override else env.settings.model.chain()

    async def execute(self, run: RunRequest, env: AgentEnv, emit: Emit) -> RunResult:
        """Run the turn for `run`'s message, its events going to `emit`; raises RunFailed when it cannot reply."""
        entry = env.sessions.get_or_create(run.session_key, chat_type=run.ctx.chat_type, channel=run.ctx.channel)
        chain = self.model_chain(env, run.model_override or entry.model_override)
        if not chain:
            raise RunFailed(NoModelError().message, code=run_event.NO_MODEL)
        transcript = env.sessions.transcript(entry)
        emit(Stream.LIFECYCLE, run_event.started(chain[0], entry.session_id, env.agent_id))
        scope = run_scope(env.agent_id, run.session_key, run.id, run.ctx.channel, run.ctx.sender_id)
        think = think_level(entry.extra.get("think"))  # the session's /think level, sent with each model call
        async with TurnGuard(env, run.session_key, transcript, run.id):
            with call_scope(scope), thinking_at(think):  # whose calls these are (usage ledger), and their /think
                return await self._run_turn(run, env, transcript, chain, emit)

    async def _run_turn(
        self, run: RunRequest, env: AgentEnv, transcript: Transcript, chain: list[str], emit: Emit
    ) -> RunResult:
        for note in run.notes:
            transcript.append({"role": "system", "content": note, "runId": run.id})
        role = "system" if run.ctx.system_event else "user"
        user: dict[str, Any] = {"role": role, "content": run.ctx.body_for_agent, "runId": run.id}
        if run.ctx.body != run.ctx.body_for_agent:
            user["display"] = run.ctx.body
        transcript.append(user)
        usage = {"input": 0, "output": 0}
        try:
            async with asyncio.timeout(env.settings.timeout_seconds) as deadline:
                turn, tool_ctx = await self._turn(run, env, transcript, chain, emit)
                text, detail = await self._loop(run, turn, tool_ctx, usage, deadline)
        except TimeoutError:
            raise RunFailed(f"run timed out after {env.settings.timeout_seconds:g} s", usage) from None
        except ModelError as exc:
            raise RunFailed(f"model error: {exc.message}", usage) from None
        return RunResult(text, usage, detail)

    async def _loop(
        self, run: RunRequest, turn: Turn, tool_ctx: ToolContext, usage: dict[str, int], deadline: asyncio.Timeout
    ) -> tuple[str, dict[str, Any]]:
        """Model calls and tool rounds until a reply without tool calls; adds each call's tokens to `usage`
        (and `estimated` when a call reported none). Returns the reply and the end event's detail.

        A reply cut by the output limit (`finish_reason: length`) ends the run with `truncated: length`
        (its tool calls, incomplete, are not run): the user may send "continue", the run never loops on
        it. An empty reply after tool results is an error, not a blank answer.

        A reply cut short by the user (an abort) is recorded as `aborted`; one cut short by a failure (a
        model error, the run's timeout) has all its text saved, and the turn guard closes the turn as
        `interrupted` with the error, so every view says the turn failed, and why."""
        transcript, emit, rounds = turn.transcript, turn.emit, turn.env.settings.max_tool_rounds
        may_recover = True  # a context overflow is compacted and retried once per model call
        for _round in range(rounds):
            if _round:  # a tool source's tools may have changed with the last round (an MCP server loaded)
                tools = await self._tools.turn_schemas(turn.agent_id, turn.session_key, tool_ctx.denied_tools)
                turn = replace(turn, tools=tools)
            for steered in run.take_steered():  # steer mode: messages that arrived during this run
                transcript.append({"role": "user", "content": steered.ctx.body_for_agent, "runId": run.id})
                emit(Stream.LIFECYCLE, run_event.steered(steered.id, steered.ctx.body))
            prompt = await self.context.prepare(turn, tool_ctx)
            if _too_big(prompt) and not turn.squeeze:  # the smallest prompt claw makes may leave room for it
                turn = replace(turn, squeeze=True)
                prompt = await self.context.build(turn)
            refusal = _too_big(prompt)
            if refusal:  # the server would refuse it (or cut it): say so before the call, in one line
                raise RunFailed(refusal, usage, code="message_too_big")
            model_turn = ModelTurn(partial=PartialReply(transcript, run.id), tool_format=self._tool_format)
            try:
                await model_turn.stream(self._router, turn.chain, prompt.messages, prompt.tools, emit)
            except BaseException as exc:
                stopped = isinstance(exc, asyncio.CancelledError) and not deadline.expired()
                if model_turn.text and not stopped and model_turn.partial is not None:
                    model_turn.partial.save()  # the guard's `interrupted` entry holds what streamed, all of it
                model_turn.close()
                if model_turn.text and stopped:
                    transcript.append(
                        _with_thinking(
                            {"role": "assistant", "content": model_turn.text, "runId": run.id, "aborted": True},
                            model_turn,
                        )
                    )
                elif not model_turn.text and may_recover and _is_overflow(exc) and not model_turn.calls:
                    may_recover = False
                    recovered = await self._recover(turn)
                    if recovered is not None:
                        turn = recovered
                        continue
                raise
            model_turn.close()  # before the reply's entry: no partial may follow it
            may_recover = True
            if self.context.is_local(model_turn.model) and not model_turn.estimated:  # the server's own count only
                # a server that cut the prompt: said once per session
                await check_truncation(turn, prompt, model_turn.usage, model_turn.model)
                if model_turn.model:
                    self.context.calibrate_from_usage(model_turn.model, prompt, model_turn.usage.input_tokens)
            usage["input"] += model_turn.usage.input_tokens
            usage["output"] += model_turn.usage.output_tokens
            if model_turn.estimated:
                usage["estimated"] = True
            truncated = model_turn.finish_reason == "length"
            calls = [] if truncated else model_turn.tool_calls()
            if truncated and model_turn.calls:
                log.info("run %s: %d tool call(s) cut by the output limit are not run", run.id, len(model_turn.calls))
            if not calls and not model_turn.text.strip() and (truncated or _round):
                raise RunFailed(CUT_BEFORE_REPLY if truncated else EMPTY_AFTER_TOOLS, usage, code="empty_reply")
            entry: dict[str, Any] = {
                "role": "assistant",
                "content": model_turn.text,
                "runId": run.id,
                "model": model_turn.model,
            }
            if calls:
                entry["toolCalls"] = [c.to_entry() for c in calls]
            transcript.append(_with_thinking(entry, model_turn))
            if not calls:
                return model_turn.text, {"truncated": run_event.TRUNCATED_LENGTH} if truncated else {}
            for call in calls:
                await self._call_tool(call, tool_ctx, transcript, run.id, emit)
        raise RunFailed(f"stopped after {rounds} tool rounds without a final reply", usage)

    def _tool_format(self, ref: str) -> str:
        return tool_call_format(ref, self._models)

    async def _turn(
        self, run: RunRequest, env: AgentEnv, transcript: Transcript, chain: list[str], emit: Emit
    ) -> tuple[Turn, ToolContext]:
        """The run's `Turn` and the context its tools run in: the session's scope, the prompt sections and
        run variables the capabilities give, and the bootstrap files as the run's filters leave them."""
        session = env.sessions.get(run.session_key)
        scope = scope_of(session.extra if session else None)  # a subagent session's limits (claw/agent/run_scope.py)
        denied = {**search_denial(env.settings, run.ctx.channel), **scope.denied_tools}
        tools = await self._tools.turn_schemas(env.agent_id, run.session_key, exclude=denied)
        request = self._section_request(run, env, scope)
        extra = await self.render_sections(request)
        skill_env = await self.run_env(request)
        tool_ctx = ToolContext(
            workspace=env.workspace,
            agent_id=env.agent_id,
            session_key=run.session_key,
            run_id=run.id,
            settings=self.context.effective_settings(env.settings, chain),
            approvals=self._approvals,
            read_roots=env.read_roots,
            channel=run.ctx.channel,
            sender_authorized=run.ctx.command_authorized,
            denied_tools=denied,
            skill_env=skill_env,
            notice=lambda message: emit(Stream.LIFECYCLE, run_event.waiting(message)),
        )
        load = functools.partial(self.context.load_bootstrap, env.settings, env.workspace, run.session_key)
        bootstrap = await filter_for_run(self.bootstrap_filters, run, env, load)
        turn = Turn(env, run.session_key, transcript, tools, extra, chain, emit, bootstrap)
        return turn, tool_ctx

    def _section_request(self, run: RunRequest, env: AgentEnv, scope: RunScope) -> SectionRequest:
        return SectionRequest(
            agent_id=env.agent_id,
            session_key=run.session_key,
            workspace=env.workspace,
            settings=env.settings,
            message=run.ctx.body_for_agent or run.ctx.body,
            channel=run.ctx.channel,
            sender_id=run.ctx.sender_id,
            scope=scope,
        )

    async def render_sections(self, request: SectionRequest) -> list[tuple[str, str]]:
        """Every extra prompt section for `request`, as (name, text); a failing section is left out."""
        rendered = []
        for source in self.sections:
            if source.name in request.scope.omit_sections:
                continue
            try:
                text = await source.render(request)
            except Exception:  # a broken extension must not break the turn
                log.exception("prompt section %s failed; leaving it out", source.name)
                continue
            if text:
                rendered.append((source.name, text))
        return rendered

    async def run_env(self, request: SectionRequest) -> dict[str, str]:
        """The variables every `env_sources` entry supplies for `request`'s run; a failing source is left out."""
        merged: dict[str, str] = {}
        for source in self.env_sources:
            try:
                found = await source.env(request)
            except Exception:  # a broken extension must not break the turn
                log.exception("run environment source %s failed; leaving it out", source.name)
                continue
            for name, value in found.items():
                merged.setdefault(name, value)
        return merged

    async def _recover(self, turn: Turn) -> Turn | None:
        """After a context-overflow error, the degradation chain: the small-window prompt (short rules, capped
        bootstrap files and sections, fewer and shorter tools), and the older history compacted with a short
        verbatim tail (old tool results are pruned in every prompt). The turn to retry with, or None when
        nothing could be made smaller."""
        squeezed = replace(turn, squeeze=True)
        done = None
        if turn.env.settings.compaction.enabled:
            try:
                done = await self.context.compact(squeezed, "overflow")
            except (ModelError, ClawError) as exc:
                log.warning("compaction after a context overflow failed for %s: %s", turn.session_key, exc)
        return squeezed if done is not None or not turn.squeeze else None

    async def _call_tool(
        self, call: ToolCall, ctx: ToolContext, transcript: Transcript, run_id: str, emit: Emit
    ) -> None:
        emit(Stream.TOOL, run_event.tool_started(call.id, call.name, _args_for_display(call.arguments)))
        try:
            if call.error:  # a call written as text that could not be read, or to a tool not offered: the
                result = ToolResult(call.error, is_error=True)  # model sees why (claw/agent/text_calls.py)
            else:
                result = await self._tools.call(call.name, call.arguments, ctx)
        except asyncio.CancelledError:
            transcript.append(
                {
                    "role": "tool",
                    "toolCallId": call.id,
                    "name": call.name,
                    "content": ABORTED_RESULT,
                    "isError": True,
                }
            )
            emit(Stream.TOOL, run_event.tool_result(call.id, call.name, True, ABORTED_RESULT))
            raise
        transcript.append(
            {
                "role": "tool",
                "toolCallId": call.id,
                "name": call.name,
                "content": result.text,
                "isError": result.is_error,
                "runId": run_id,
            }
        )
        emit(Stream.TOOL, run_event.tool_result(call.id, call.name, result.is_error, result.text))


def _with_thinking(entry: dict[str, Any], model_turn: ModelTurn) -> dict[str, Any]:
    """`entry` with the call's reasoning under `thinking`, apart from its `content`: the record keeps it,
    the model's history leaves it out (claw/agent/history.py) unless the model's `sendReasoning` is set."""
    if model_turn.thinking:
        entry["thinking"] = model_turn.thinking
    return entry


def _too_big(prompt: AssembledContext) -> str | None:
    return message_too_big({s.name: s.tokens for s in prompt.sections}, prompt.window)


def _is_overflow(exc: BaseException) -> bool:
    return isinstance(exc, ModelError) and exc.kind == "overflow"


def _args_for_display(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw
