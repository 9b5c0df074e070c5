"""`--continue`: which session is "the most recent one" of an agent, for `claw chat -c` and `claw agent -c`.

The most recently updated session that a person talks in: subagent sessions (their parent is the
conversation) and automation runs (`…:cron:…`, nobody typed in them) are passed over. Asked of the
gateway that owns the state when one runs (or of `--url`'s), else read from the session index here:
with no gateway running, nobody else is writing it.
"""

from __future__ import annotations

from typing import Any

_NOT_CONVERSATIONS = (":subagent:", ":cron:")


def pick_latest(rows: list[dict[str, Any]]) -> str | None:
    """The key of the newest conversation among `sessions.list` rows (newest first), or None."""
    for row in sorted(rows, key=lambda r: r.get("updatedAt") or 0, reverse=True):  # ms since the epoch
        key = str(row.get("key") or "")
        if key and not row.get("spawnedBy") and not any(part in key for part in _NOT_CONVERSATIONS):
            return key
    return None


def continued_session_key(agent_id: str, url: str | None = None) -> str | None:
    """`latest_session_key`, said on stderr (dim): `-c` never continues a session without naming it."""
    key = latest_session_key(agent_id, url)
    from rich.console import Console

    said = f"continuing {key}" if key else f"no conversation of {agent_id} yet: starting its main session"
    Console(stderr=True, highlight=False).print(said, style="dim", markup=False)
    return key


def latest_session_key(agent_id: str, url: str | None = None) -> str | None:
    """The key `--continue` opens for `agent_id` (None: the agent has no conversation yet)."""
    import asyncio

    from claw.cli.gateway_call import DEFAULT_CALL_TIMEOUT, _call_remote, running_gateway_url
    from claw.client.remote import GatewayNotListening

    target = url or running_gateway_url()
    if target is not None:
        try:
            listed = asyncio.run(_call_remote(target, "sessions.list", {"agentId": agent_id}, DEFAULT_CALL_TIMEOUT))
            return pick_latest(listed["sessions"])
        except GatewayNotListening:
            if url is not None:
                raise
            # a stale gateway.json: nothing listens there; the index on disk is the truth
    from claw.api.session_rows import epoch_ms
    from claw.cli.common import load
    from claw.store.sessions import SessionStore

    paths, _config = load(agent_id)
    store = SessionStore(paths.sessions_dir(agent_id))
    try:
        rows = [
            {"key": e.session_key, "updatedAt": epoch_ms(e.updated_at), "spawnedBy": e.extra.get("spawnedBy")}
            for e in store.list()
        ]
    finally:
        store.close()
    return pick_latest(rows)


def pick_session_first(agent_id: str, url: str | None = None) -> str | None:
    """`claw chat --resume`: the resume picker on its own, on the gateway the console will use; the key
    picked, or None when it was closed without a choice."""
    import asyncio

    return asyncio.run(_pick(agent_id, url))


async def _pick(agent_id: str, url: str | None) -> str | None:
    from claw.cli.gateway_call import running_gateway_url
    from claw.client.protocol import GatewayClient
    from claw.tui.session_picker import ResumePickerApp

    target = url or running_gateway_url()
    client: GatewayClient
    if target is not None:
        from claw.client.remote import RemoteClient
        from claw.errors import ConfigError
        from claw.paths import Paths
        from claw.server.auth import TOKEN_ENV, resolve_token

        token, _source = resolve_token(Paths.from_env())
        if token is None:
            raise ConfigError(f"no gateway token to connect with: set {TOKEN_ENV} or run `claw init`")
        client = await RemoteClient.connect(target, token, channel="tui")
    else:
        from claw.cli.common import load
        from claw.client.local import LocalClient
        from claw.compose import build_gateway

        paths, config = load(agent_id)
        client = LocalClient(build_gateway(paths, config), channel="tui")
    try:
        return await ResumePickerApp(client, agent_id).run_async()
    finally:
        await client.close()
