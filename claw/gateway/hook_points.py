"""Where the gateway fires hook events into its `HookBus`: one function per place, each building the
event's payload (`agent:bootstrap` is the hooks capability's own, fired from its bootstrap filter).

- `startup`: end of `Gateway.start()`, after the services (channels, server) started. Background.
- `received`: in `Gateway.dispatch`, after dedupe and before command handling, so slash commands
  are seen too; duplicates and idempotent retries are not. Background.
- `command`: `/new` and `/reset` (after the new session id exists, with the ended session) and
  `/stop`. Awaited; what hooks put in `messages` is added to the command's reply.
- `run_ended`: when a run records its outcome (`run:end`), and for a run with a final reply on
  the main lane, `message:sent` — unless the run's channel adapter fires that itself on delivery.
- `message_sent`: for channel adapters, when they deliver a reply (see `HookBus.adapter_delivers`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from claw.gateway.hook_events import CommandEvent, GatewayStartup, MessageReceived, MessageSent, RunEnd
from claw.gateway.hook_model import HookModel

if TYPE_CHECKING:
    from claw.agent.env import AgentEnv
    from claw.agent.runner import AgentRunner
    from claw.config import Config
    from claw.gateway.command_call import CommandCall
    from claw.gateway.hook_bus import HookBus
    from claw.gateway.runs import Run, RunOutcome
    from claw.paths import Paths
    from claw.providers.failover import ModelRouter
    from claw.store.sessions import SessionEntry, SessionStore
    from claw.vocab.msg_context import MsgContext


class HookHost(Protocol):
    """What firing a hook event uses of the gateway."""

    paths: Paths
    config: Config
    hooks: HookBus
    runner: AgentRunner
    router: ModelRouter

    def workspace(self, agent_id: str) -> Path: ...

    def sessions(self, agent_id: str) -> SessionStore: ...

    def agent_env(self, agent_id: str) -> AgentEnv: ...


MODEL_SHARE_OF_TIMEOUT = 0.6
"""A hook's model call gets this share of the hook timeout, leaving time for a fallback."""


def startup(gw: HookHost) -> None:
    event = GatewayStartup(
        state_dir=gw.paths.data_dir,
        agent_ids=tuple(gw.config.agent_ids),
        workspace=gw.workspace("main"),
        config_path=gw.config.path,
    )
    gw.hooks.fire_soon(event)


def received(gw: HookHost, ctx: MsgContext, agent_id: str, session_key: str, lane: str = "main") -> None:
    event = MessageReceived(
        state_dir=gw.paths.data_dir,
        session_key=session_key,
        agent_id=agent_id,
        channel=ctx.channel,
        account_id=ctx.account_id,
        chat_type=ctx.chat_type,
        sender_id=ctx.sender_id,
        sender_name=ctx.sender_name,
        peer_id=ctx.peer_id,
        thread_id=ctx.thread_id,
        message_id=ctx.message_id,
        content=ctx.body,
        system_event=ctx.system_event,
        lane=lane,
    )
    gw.hooks.fire_soon(event)


async def command(
    gw: HookHost, call: CommandCall, *, previous: SessionEntry | None = None, current: SessionEntry | None = None
) -> list[str]:
    """Fire `command:<name>`; returns the messages hooks want added to the reply."""
    store = gw.sessions(call.agent_id)
    basis = previous or current
    chain = gw.runner.model_chain(gw.agent_env(call.agent_id), basis.model_override if basis else None)
    timeout = gw.hooks.timeout_seconds
    event = CommandEvent(
        state_dir=gw.paths.data_dir,
        session_key=call.session_key,
        command=call.name,
        agent_id=call.agent_id,
        workspace=gw.workspace(call.agent_id),
        channel=call.channel,
        sender_id=call.sender_id,
        args=call.args,
        session=current,
        previous_session=previous,
        previous_transcript=ended_transcript(store, previous) if previous else None,
        model=HookModel(gw.router, chain, timeout * MODEL_SHARE_OF_TIMEOUT) if chain else None,
    )
    done = await gw.hooks.fire(event)
    return list(done.messages)


def run_ended(gw: HookHost, run: Run, outcome: RunOutcome) -> None:
    end = RunEnd(
        state_dir=gw.paths.data_dir,
        session_key=run.session_key,
        agent_id=run.agent_id,
        run_id=run.id,
        channel=run.ctx.channel,
        lane=run.lane,
        message=run.ctx.body,
        status=outcome.status,
        text=outcome.text,
        error=outcome.error,
        usage=dict(outcome.usage),
        started_at=outcome.started_at,
        ended_at=outcome.ended_at,
    )
    gw.hooks.fire_soon(end)
    if outcome.status == "ok" and outcome.text and run.lane == "main" and gw.hooks.fires_sent_for(run.ctx.channel):
        target = run.ctx.peer_id if run.ctx.chat_type == "direct" else (run.ctx.group_id or run.ctx.peer_id)
        message_sent(
            gw,
            channel=run.ctx.channel,
            to=target,
            content=outcome.text,
            session_key=run.session_key,
            agent_id=run.agent_id,
            run_id=run.id,
        )


def message_sent(
    gw: HookHost,
    *,
    channel: str,
    to: str,
    content: str,
    success: bool = True,
    error: str | None = None,
    session_key: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
) -> None:
    """Fire `message:sent` (channel adapters call this after each delivery attempt)."""
    event = MessageSent(
        state_dir=gw.paths.data_dir,
        session_key=session_key,
        channel=channel,
        to=to,
        content=content,
        success=success,
        error=error,
        agent_id=agent_id,
        run_id=run_id,
    )
    gw.hooks.fire_soon(event)


def ended_transcript(store: SessionStore, entry: SessionEntry) -> Path | None:
    """Where the transcript of a session that was just reset lives now: in `archive/`, else (not yet
    moved) beside the index; None when it never had one."""
    archived = store.archive_dir / f"{entry.session_id}.jsonl"
    if archived.exists():
        return archived
    later = sorted(store.archive_dir.glob(f"{entry.session_id}.*.jsonl"))
    if later:
        return later[-1]
    live = store.transcript_path(entry.session_id)
    return live if live.exists() else None
