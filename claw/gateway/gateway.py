"""`Gateway`: the core. It owns sessions, runs, lanes, the event bus and the runtime.

Every client — the CLI, the console, a WebSocket peer — goes through `dispatch` (messages) and
`call_method` (the core's RPC methods and those of the capabilities it was given with `use`).
`claw.compose.build_gateway` builds one with every capability, in one place, handing each the gateway
typed as its own narrow host protocol (`claw.gateway.host`): a capability reaches only the public
operations its protocol names, never the runner, the lanes or the buses.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from claw.agent.env import AgentEnv
from claw.agent.run_result import RunFailed
from claw.agent.runner import AgentRunner
from claw.config import Config
from claw.errors import ClawError, GatewayUnavailable, NotFoundError, UsageError
from claw.gateway import commands, hook_points
from claw.gateway.broadcaster import Broadcaster
from claw.gateway.capability import Capability, HttpRoute, Method
from claw.gateway.dedupe import InboundDedupe
from claw.gateway.dispatch_result import DispatchResult, NoRunStarted
from claw.gateway.event_bus import EventBus, Subscription
from claw.gateway.hook_bus import HookBus
from claw.gateway.lanes import LaneScheduler
from claw.gateway.method_table import MethodTable
from claw.gateway.queueing import QueueController, QueuePolicy, configured_policy
from claw.gateway.routing import route
from claw.gateway.runs import Run, RunOutcome, RunRegistry, new_run_id
from claw.gateway.services import GatewayService
from claw.gateway.ttl_cache import TtlCache
from claw.paths import Paths
from claw.providers.failover import ModelRouter
from claw.store.sessions import SessionEntry, SessionStore
from claw.tools.exec_approvals import ApprovalBroker, ExecApprovalsStore
from claw.tools.registry import ToolRegistry, builtin_tools
from claw.vocab import run_event
from claw.vocab.command_syntax import parse_command
from claw.vocab.msg_context import MsgContext
from claw.vocab.run_event import RunEvent, Stream
from claw.vocab.session_keys import agent_of, normalize_session_key, session_key_for
from claw.workspace import workspace_dir

log = logging.getLogger(__name__)

C = TypeVar("C", bound=Capability)
IDEMPOTENCY_TTL_SECONDS = 20 * 60


class Gateway:
    """One per process. Use as `async with Gateway(paths, config) as gw:`."""

    def __init__(
        self,
        paths: Paths,
        config: Config,
        *,
        router: ModelRouter | None = None,
        services: Sequence[GatewayService] | Callable[[Gateway], Sequence[GatewayService]] = (),
        methods: Mapping[str, Method],
        broadcasts: Callable[[Gateway], Broadcaster],
    ) -> None:
        self.paths = paths
        self.config = config
        self.bus = EventBus()
        self.broadcasts = broadcasts(self)
        """Gateway-wide events (`chat`, `sessions.changed`, `session.message`), built from the runs' events."""
        self.hooks = HookBus()
        """Lifecycle hook events (`claw.gateway.hook_points` says where each one fires); the hooks
        capability attaches what runs for them."""
        self.runs = RunRegistry()
        self.lanes = LaneScheduler(
            {
                "main": config.defaults.max_concurrent,
                "cron": 1,
                "subagent": config.defaults.subagents.max_concurrent,
                # Turns one session starts in another (a subagent's announcement, sessions_send): they skip
                # the queue modes, so a report never interrupts or steers the turn the user is in.
                "nested": config.defaults.max_concurrent,
            }
        )
        self.extra_read_roots: list[Path] = []
        """Directories outside the workspace that `read` may read (installed and bundled skills)."""
        self.approvals = ApprovalBroker(ExecApprovalsStore(paths.exec_approvals_file))
        self.router = router or ModelRouter(config)
        self.tools = ToolRegistry(builtin_tools(paths))
        self.runner = AgentRunner(self.router, self.tools, self.approvals, models=config.models)
        self.started_at = time.time()
        self.queue = QueueController(self.runs)
        self._dedupe = InboundDedupe()
        self._idempotency: TtlCache[DispatchResult] = TtlCache(IDEMPOTENCY_TTL_SECONDS, 10_000)
        self._stores: dict[str, SessionStore] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._background: set[asyncio.Task[Any]] = set()
        self.capabilities: list[Capability] = []
        """What `use` added, in order (the prompt's sections come in this order)."""
        self.methods = MethodTable(methods)
        """Every RPC method this gateway serves, by wire name: `methods` (the wire API's, `claw.api.core`),
        then each capability's (built on first use)."""
        self.commands = commands.CommandTable()
        self._services = services
        self.services: list[GatewayService] = []
        """The services `start` starts: those given, or what the callable given returned at `start`."""
        self._started: list[GatewayService] = []
        self.closing = False

    async def __aenter__(self) -> Gateway:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def use(self, *capabilities: Capability) -> None:
        """Add what each capability offers: tools, prompt sections (in this order), bootstrap filters,
        variables for `exec`, read roots, slash commands, RPC methods. A tool name already taken keeps
        its first owner; a method or command name already taken is a programming error (a method's
        when its capability's table is built: see `MethodTable`)."""
        for capability in capabilities:
            offered_commands = capability.commands()
            for command in offered_commands:  # checked before anything is added: never half a capability
                if self.commands.get(command.name) is not None:
                    raise ValueError(f"{capability.name}: the command /{command.name} is taken")
            self.methods.add(capability)  # its table now, or when its namespace is first called
            for tool in capability.tools():
                if self.tools.get(tool.name) is None:
                    self.tools.register(tool)
            for source in capability.tool_sources():
                self.tools.add_source(source)
            self.runner.sections.extend(capability.sections())
            self.runner.env_sources.extend(capability.env_sources())
            self.runner.bootstrap_filters.extend(capability.bootstrap_filters())
            self.extra_read_roots.extend(r for r in capability.read_roots() if r not in self.extra_read_roots)
            self.commands.add(*offered_commands)
            self.commands.fallbacks.extend(capability.command_fallbacks())
            self.commands.stop_listeners.extend(capability.stop_listeners())
            self.capabilities.append(capability)

    def capability(self, kind: type[C]) -> C:
        """The capability of type `kind` this gateway uses (for the interface layer and tests);
        NotFoundError when it was built without one."""
        for capability in self.capabilities:
            if isinstance(capability, kind):
                return capability
        raise NotFoundError(f"this gateway has no {kind.__name__}")

    def capability_services(self) -> list[GatewayService]:
        """The long-lived services the capabilities offer (what `claw chat` and `claw gateway run` start)."""
        return [service for capability in self.capabilities for service in capability.services()]

    def http_routes(self) -> list[HttpRoute]:
        """The HTTP routes the capabilities add to the gateway server's port."""
        return [route for capability in self.capabilities for route in capability.routes()]

    async def call_method(self, name: str, params: dict[str, Any], *, channel: str = "cli") -> Any:
        """Call the RPC method `name`; `params` get `_channel`, the caller's channel."""
        method = self.methods.get(name)
        if method is None:
            raise UsageError(f"unknown method: {name}")
        return await method(self, {**params, "_channel": channel})

    async def start(self) -> None:
        """Start the services, in order; if one fails, those already started are stopped again."""
        self.services = list(self._services(self) if callable(self._services) else self._services)
        for service in self.services:
            try:
                await service.start(self)
            except BaseException:
                await self._stop_services()
                raise
            self._started.append(service)
        hook_points.startup(self)

    async def close(self) -> None:
        """Refuse new messages, abort what is still running and wait for every run to record its outcome
        (while the services are still up, so remote clients see the `aborted` events), then stop the
        services and flush the indexes."""
        self.closing = True
        for run in self.runs.active():
            self.abort(run.id)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._background:  # e.g. subagent supervisors recording what became of their aborted children
            await asyncio.gather(*self._background, return_exceptions=True)
        await self.hooks.drain()  # run:end and the other background hooks of the runs that just ended
        await self._stop_services()
        closed = await asyncio.gather(*(c.aclose() for c in self.capabilities), return_exceptions=True)  # MCP servers
        for capability, outcome in zip(self.capabilities, closed, strict=True):
            if isinstance(outcome, Exception):  # never silently: a child process may have been left running
                log.error("capability %s did not close cleanly: %s", capability.name, outcome, exc_info=outcome)
        await self.router.aclose()
        for capability in reversed(self.capabilities):  # on the loop: closing a database is quick
            try:
                capability.close()
            except Exception:
                log.exception("capability %s did not close cleanly", capability.name)
        for store in self._stores.values():
            await asyncio.to_thread(store.close)
        self._stores.clear()

    def track(self, task: asyncio.Task[Any]) -> None:
        """Keep an extension's background task until it ends; `close` waits for it after the runs."""
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _stop_services(self) -> None:
        while self._started:
            service = self._started.pop()
            try:
                await service.stop()
            except Exception:
                log.exception("service %s did not stop cleanly", service.name)

    # --- agents and sessions -------------------------------------------------------------------

    def sessions(self, agent_id: str) -> SessionStore:
        if agent_id not in self._stores:
            self.config.agent(agent_id)
            self._stores[agent_id] = SessionStore(self.paths.sessions_dir(agent_id))
        return self._stores[agent_id]

    def workspace(self, agent_id: str) -> Path:
        return workspace_dir(self.paths, self.config, agent_id)

    def agent_env(self, agent_id: str) -> AgentEnv:
        return AgentEnv(
            agent_id,
            self.config.agent(agent_id),
            self.workspace(agent_id),
            self.sessions(agent_id),
            tuple(self.extra_read_roots),
        )

    async def reset_session(self, session_key: str) -> SessionEntry:
        return await asyncio.to_thread(self.sessions(agent_of(session_key)).reset, session_key)

    async def session_status(self, agent_id: str, session_key: str) -> dict[str, Any]:
        entry = self.sessions(agent_id).get(session_key)
        chain = self.runner.model_chain(self.agent_env(agent_id), entry.model_override if entry else None)
        active = self.runs.active(session_key)
        running = [r for r in active if r.started_at is not None]
        return {
            "sessionKey": session_key,
            "sessionId": entry.session_id if entry else None,
            "model": chain[0] if chain else None,
            "messages": entry.message_count if entry else 0,
            "inputTokens": entry.input_tokens if entry else 0,
            "outputTokens": entry.output_tokens if entry else 0,
            "state": "running" if running else "idle",
            "queued": len(active) - len(running),
        }

    # --- messages and runs ---------------------------------------------------------------------

    async def dispatch(
        self,
        ctx: MsgContext,
        *,
        idempotency_key: str | None = None,
        model: str | None = None,
        lane: str = "main",
    ) -> DispatchResult:
        """Finalize → route → session key → dedupe → command? → accepted run (queued on its lanes).

        `lane` names the global lane the run waits in: `main` for messages, `cron` for automations,
        `subagent` for child runs, so background work never blocks interactive replies."""
        if idempotency_key and (previous := self._idempotency.get(idempotency_key)) is not None:
            return previous
        if self.closing:
            raise GatewayUnavailable("the gateway is shutting down; try again once it is back")
        ctx = ctx.finalized()
        agent_id = ctx.agent_id or route(ctx, self.config.bindings)
        self.config.agent(agent_id)
        if ctx.session_key:
            session_key = normalize_session_key(ctx.session_key, agent_id)
        else:
            session_key = session_key_for(ctx, agent_id, self.config.session.dm_scope)
        if self._dedupe.is_duplicate(ctx, session_key):
            return DispatchResult("duplicate", agent_id, session_key)
        hook_points.received(self, ctx, agent_id, session_key, lane)  # commands included, before they run
        parsed = parse_command(ctx.body) if ctx.command_authorized else None
        if parsed is not None:
            call = commands.CommandCall(parsed[0], parsed[1], agent_id, session_key, ctx.channel, ctx.sender_id)
            reply = await self.commands.run(self, call)
            if isinstance(reply, commands.RunInstead):  # e.g. `/skill name args`: a normal run, reworded
                ctx = replace(ctx, body_for_agent=reply.message)
            elif isinstance(reply, commands.CommandFailed):  # `/bogus`, `/queue sideways`: an error, not the model
                failed = DispatchResult("command", agent_id, session_key, reply=reply.message, error=reply.kind)
                return self._remember(idempotency_key, failed)
            else:
                return self._remember(idempotency_key, DispatchResult("command", agent_id, session_key, reply=reply))
        run_id = new_run_id(idempotency_key, lambda key: self.runs.get(key) is not None)
        run = Run(run_id, agent_id, session_key, ctx, model_override=model, lane=lane)
        if lane == "main":
            admission = self.queue.admit(run, self.queue_policy(agent_id, session_key, ctx.channel), self.abort)
            if admission.kind != "run":
                result = DispatchResult(admission.kind, agent_id, session_key, admission.run_id, admission.reason)
                return self._remember(idempotency_key, result)
        self.runs.add(run)
        origin = {"channel": ctx.channel, "message": ctx.body, "sender": ctx.sender_name}
        self._emit(run, Stream.LIFECYCLE, run_event.accepted(agent_id, **origin, system_event=ctx.system_event))
        task = asyncio.create_task(self._execute(run), name=f"run:{run.id}")
        run.task = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda _task: self._finish_unstarted(run))
        return self._remember(idempotency_key, DispatchResult("accepted", agent_id, session_key, run_id=run.id))

    def _finish_unstarted(self, run: Run) -> None:
        """A task cancelled before its first step never runs `_execute`: give its run a terminal event here."""
        if not run.finished:
            outcome = _cancelled_outcome(run)
            self._emit(run, Stream.LIFECYCLE, _terminal_data(outcome))
            run.finish(outcome)
            hook_points.run_ended(self, run, outcome)

    def abort(self, run_id: str) -> bool:
        run = self.runs.get(run_id)
        if run is None or run.finished or run.finishing or run.task is None:
            return False
        run.abort_requested = True
        run.task.cancel()
        return True

    def queue_policy(self, agent_id: str, session_key: str, channel: str) -> QueuePolicy:
        """The session's `/queue` override if it has one, else the channel's or the configured mode."""
        entry = self.sessions(agent_id).get(session_key)
        override = entry.extra.get("queue") if entry else None
        return QueuePolicy.from_wire(override) if override else configured_policy(self.config, channel)

    def abort_session(self, session_key: str) -> int:
        return sum(self.abort(run.id) for run in self.runs.active(session_key))

    def subscribe_run(self, run_id: str) -> tuple[list[RunEvent], Subscription]:
        """Events so far and a live subscription for the rest (subscribed first, so nothing falls between)."""
        run = self.runs.get(run_id)
        if run is None:
            raise NotFoundError(f"unknown run {run_id}")
        sub = self.bus.subscribe(lambda e: e.run_id == run_id)
        return list(run.events), sub

    # --- what capabilities ask of the gateway (their host protocols, claw/gateway/host.py) ------

    async def start_run(self, ctx: MsgContext, *, lane: str, model: str | None = None) -> Run:
        """`dispatch` for a caller that needs a run of its own (a subagent, an automation's turn, a message
        between sessions): the run, already queued on its lanes. `NoRunStarted` when the message became
        something else (a slash command's reply, a duplicate, a message merged into a queued run)."""
        result = await self.dispatch(ctx, lane=lane, model=model)
        run = self.runs.get(result.run_id) if result.status == "accepted" and result.run_id else None
        if run is None:
            raise NoRunStarted(result)
        return run

    def find_run(self, run_id: str) -> Run | None:
        """A running run, or one of the recently finished ones."""
        return self.runs.get(run_id)

    def active_runs(self, session_key: str | None = None) -> list[Run]:
        """The runs not yet finished (queued or running), of one session or of all."""
        return self.runs.active(session_key)

    def publish_lifecycle(self, run: Run, data: dict[str, Any]) -> None:
        """Add a lifecycle event that a capability knows of to `run`'s stream (a subagent it spawned).
        Nothing once the run is finishing: its terminal event must stay its last."""
        if not run.finished and not run.finishing:
            self._emit(run, Stream.LIFECYCLE, data)

    async def _execute(self, run: Run) -> None:
        """Run on the lanes, then record the turn and emit exactly one terminal lifecycle event."""
        outcome: RunOutcome | None = None
        env: AgentEnv | None = None
        try:
            env = self.agent_env(run.agent_id)
            async with self.lanes.run_slot(run.session_key, run.lane):
                if run.collect_open:
                    await self.queue.settle(run, self.queue_policy(run.agent_id, run.session_key, run.ctx.channel))
                if dropped := self.queue.take_dropped(run.session_key):
                    run.notes.append(_dropped_note(dropped))
                run.started_at = time.time()
                result = await self.runner.execute(run, env, lambda s, d: self._emit(run, s, d))
            outcome = RunOutcome("ok", result.text, None, result.usage, run.started_at, time.time(), result.detail)
        except asyncio.CancelledError:
            outcome = _cancelled_outcome(run)
        except (RunFailed, ClawError) as exc:
            usage = getattr(exc, "usage", {})
            code = getattr(exc, "code", None)
            outcome = RunOutcome(
                "error",
                error=exc.message,
                usage=usage,
                started_at=run.started_at,
                ended_at=time.time(),
                detail={"code": code} if code else {},
            )
        except Exception as exc:  # a bug: keep the traceback in the log, give the user one line
            log.exception("run %s failed", run.id)
            outcome = RunOutcome("error", error=f"internal error: {type(exc).__name__}: {exc}", ended_at=time.time())
        finally:
            run.finishing = True  # from here on an abort cannot interrupt the bookkeeping
            if outcome is None:
                outcome = RunOutcome("error", error="run ended without a result", ended_at=time.time())
            recorded = env is not None and run.started_at is not None and self._record(run, env, outcome)
            self._emit(run, Stream.LIFECYCLE, _terminal_data(outcome))
            run.finish(outcome)
            hook_points.run_ended(self, run, outcome)
            if recorded and env is not None:
                await self._persist(env)

    def _record(self, run: Run, env: AgentEnv, outcome: RunOutcome) -> bool:
        """Update the session's counters in memory, before the terminal event, so that a client asking
        right after `end` sees them; `_persist` writes the index after the event (off the reply's path)."""
        try:
            env.sessions.record_turn(
                run.session_key,
                preview=outcome.text or run.ctx.body,
                input_tokens=outcome.usage.get("input", 0),
                output_tokens=outcome.usage.get("output", 0),
                save=False,
            )
        except Exception:
            log.exception("could not update the session index for %s", run.session_key)
            return False
        return True

    async def _persist(self, env: AgentEnv) -> None:
        try:
            await asyncio.to_thread(env.sessions.flush)
        except Exception:
            log.exception("could not write the session index of agent %s", env.agent_id)

    def _emit(self, run: Run, stream: Stream, data: dict[str, Any]) -> None:
        event = run.next_event(stream, data)
        self.bus.publish(event)
        self.broadcasts.run_event(event)

    def _remember(self, key: str | None, result: DispatchResult) -> DispatchResult:
        if key:
            self._idempotency.put(key, result)
        return result


def _cancelled_outcome(run: Run) -> RunOutcome:
    """A cancelled run was either absorbed into a running turn (steer), dropped from the queue, or aborted."""
    if run.absorbed_into:
        return RunOutcome("ok", ended_at=time.time(), detail={"steeredInto": run.absorbed_into})
    detail = {"reason": run.drop_reason} if run.drop_reason else {}
    return RunOutcome("aborted", error="aborted", started_at=run.started_at, ended_at=time.time(), detail=detail)


def _terminal_data(outcome: RunOutcome) -> dict[str, Any]:
    if outcome.status == "ok":
        return run_event.end(outcome.text, outcome.usage, **outcome.detail)
    if outcome.status == "aborted":
        return run_event.aborted(**outcome.detail)
    return run_event.error(outcome.error, **outcome.detail)


def _dropped_note(summaries: list[str]) -> str:
    lines = "\n".join(f"- {s}" for s in summaries)
    return f"While you were busy, {len(summaries)} queued message(s) were dropped (queue full):\n{lines}"
