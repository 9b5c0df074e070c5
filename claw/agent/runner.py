"""The agent loop: assemble context → model (streamed) → tools → model … until a reply has no tool calls.

The transcript is written as the run goes (the user message first, then each
assistant message and tool result), so a crash or an abort loses at most the
line being written. The runner emits `start`, assistant and tool events; the
gateway emits the one terminal lifecycle event from what `execute` returns or raises.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claw.agent.bootstrap import BootstrapLoader
from claw.agent.context import assemble, system_prompt
from claw.agent.history import HistoryView
from claw.agent.model_turn import Emit, ModelTurn, ToolCall
from claw.agent.sections import PromptSectionSource, SectionRequest
from claw.config import AgentSettings
from claw.errors import NoModelError
from claw.gateway.runs import Run, RunOutcome
from claw.providers.base import ModelError
from claw.providers.failover import ModelRouter
from claw.store.sessions import SessionStore
from claw.store.transcript import Transcript
from claw.tools.base import Approvals, ToolContext
from claw.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

ABORTED_RESULT = "[aborted: the run was stopped while this tool was running]"
MAX_HISTORY_VIEWS = 256


class RunFailed(Exception):
    """The run could not produce a reply; `message` says why, for the user."""

    def __init__(self, message: str, usage: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage or {}


@dataclass(frozen=True, slots=True)
class AgentEnv:
    """What the runner needs to know about one agent."""

    agent_id: str
    settings: AgentSettings
    workspace: Path
    sessions: SessionStore
    read_roots: tuple[Path, ...] = ()


class AgentRunner:
    """Runs turns for every agent of one gateway; shares the model router, tools and caches."""

    def __init__(self, router: ModelRouter, tools: ToolRegistry, approvals: Approvals) -> None:
        self._router = router
        self._tools = tools
        self._approvals = approvals
        self.sections: list[PromptSectionSource] = []
        """Extra system-prompt sections, rendered once per run in this order (memory, then skills)."""
        self._bootstrap = BootstrapLoader()
        self._views: OrderedDict[str, HistoryView] = OrderedDict()

    def model_chain(self, env: AgentEnv, override: str | None) -> list[str]:
        chain = env.settings.model.chain()
        if override:
            chain = list(dict.fromkeys([override, *chain]))
        return chain

    async def execute(self, run: Run, env: AgentEnv, emit: Emit) -> RunOutcome:
        entry = env.sessions.get_or_create(run.session_key, chat_type=run.ctx.chat_type, channel=run.ctx.channel)
        chain = self.model_chain(env, run.model_override or entry.model_override)
        if not chain:
            raise RunFailed(NoModelError().message)
        transcript = env.sessions.transcript(entry)
        emit(
            "lifecycle",
            {"phase": "start", "model": chain[0], "sessionId": entry.session_id, "agentId": env.agent_id},
        )
        role = "system" if run.ctx.system_event else "user"
        user: dict[str, Any] = {"role": role, "content": run.ctx.body_for_agent, "runId": run.id}
        if run.ctx.body != run.ctx.body_for_agent:
            user["display"] = run.ctx.body
        transcript.append(user)
        usage = {"input": 0, "output": 0}
        try:
            async with asyncio.timeout(env.settings.timeout_seconds):
                text = await self._loop(run, env, transcript, chain, usage, emit)
        except TimeoutError:
            raise RunFailed(f"run timed out after {env.settings.timeout_seconds:g} s", usage) from None
        except ModelError as exc:
            raise RunFailed(f"model error: {exc.message}", usage) from None
        return RunOutcome(status="ok", text=text, usage=usage)

    async def _loop(
        self,
        run: Run,
        env: AgentEnv,
        transcript: Transcript,
        chain: list[str],
        usage: dict[str, int],
        emit: Emit,
    ) -> str:
        tools = self._tools.schemas()
        tool_ctx = ToolContext(
            workspace=env.workspace,
            agent_id=env.agent_id,
            session_key=run.session_key,
            run_id=run.id,
            settings=env.settings,
            approvals=self._approvals,
            read_roots=env.read_roots,
        )
        extra = await self._render_sections(run, env)
        for _round in range(env.settings.max_tool_rounds):
            messages = await self._messages(run, env, transcript, tools, extra)
            turn = ModelTurn()
            try:
                await turn.stream(self._router, chain, messages, tools, emit)
            except BaseException:
                if turn.text:
                    transcript.append({"role": "assistant", "content": turn.text, "runId": run.id, "aborted": True})
                raise
            usage["input"] += turn.usage.input_tokens
            usage["output"] += turn.usage.output_tokens
            calls = turn.tool_calls()
            entry: dict[str, Any] = {
                "role": "assistant",
                "content": turn.text,
                "runId": run.id,
                "model": turn.model,
            }
            if calls:
                entry["toolCalls"] = [c.to_entry() for c in calls]
            transcript.append(entry)
            if not calls:
                return turn.text
            for call in calls:
                await self._call_tool(call, tool_ctx, transcript, run, emit)
        raise RunFailed(f"stopped after {env.settings.max_tool_rounds} tool rounds without a final reply", usage)

    async def _render_sections(self, run: Run, env: AgentEnv) -> list[tuple[str, str]]:
        request = SectionRequest(
            agent_id=env.agent_id,
            session_key=run.session_key,
            workspace=env.workspace,
            settings=env.settings,
            message=run.ctx.body_for_agent or run.ctx.body,
            channel=run.ctx.channel,
            sender_id=run.ctx.sender_id,
        )
        rendered = []
        for source in self.sections:
            try:
                text = await source.render(request)
            except Exception:  # a broken extension must not break the turn
                log.exception("prompt section %s failed; leaving it out", source.name)
                continue
            if text:
                rendered.append((source.name, text))
        return rendered

    async def _messages(
        self, run: Run, env: AgentEnv, transcript: Transcript, tools: list[dict], extra: list[tuple[str, str]]
    ) -> list[dict]:
        entries = await asyncio.to_thread(transcript.read)
        view = self._view(transcript)
        view.update(entries)
        files = self._bootstrap.load(
            env.workspace, env.settings.bootstrap_max_chars, env.settings.bootstrap_total_max_chars
        )
        system = system_prompt(
            workspace=env.workspace,
            agent_id=env.agent_id,
            session_key=run.session_key,
            bootstrap=files,
            extra=extra,
        )
        s = env.settings
        return assemble(
            system=system,
            history=view,
            tools=tools,
            context_tokens=s.context_tokens,
            reserve_tokens=s.reserve_tokens,
        ).messages

    async def _call_tool(self, call: ToolCall, ctx: ToolContext, transcript: Transcript, run: Run, emit: Emit) -> None:
        emit(
            "tool",
            {
                "phase": "start",
                "toolCallId": call.id,
                "name": call.name,
                "args": _args_for_display(call.arguments),
            },
        )
        try:
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
            emit(
                "tool",
                {
                    "phase": "result",
                    "toolCallId": call.id,
                    "name": call.name,
                    "isError": True,
                    "result": ABORTED_RESULT,
                },
            )
            raise
        transcript.append(
            {
                "role": "tool",
                "toolCallId": call.id,
                "name": call.name,
                "content": result.text,
                "isError": result.is_error,
                "runId": run.id,
            }
        )
        emit(
            "tool",
            {
                "phase": "result",
                "toolCallId": call.id,
                "name": call.name,
                "isError": result.is_error,
                "result": result.text,
            },
        )

    def _view(self, transcript: Transcript) -> HistoryView:
        key = str(transcript.path)
        view = self._views.pop(key, None) or HistoryView()
        self._views[key] = view
        while len(self._views) > MAX_HISTORY_VIEWS:
            self._views.popitem(last=False)
        return view


def _args_for_display(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw
