"""`claw agent` through a running gateway instead of an in-process one.

The gateway is the one at `--url`, or the one `gateway.json` names when its process
is alive. This path stays light (no config, pydantic, openai or textual): it reads
the token, connects with `RemoteClient` and renders the run with the same code as
the in-process path (`run_render.drive_turn`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.cli.run_render import ask_on_terminal, drive_turn, wants_terminal_approvals
from claw.client.remote import GatewayNotListening, RemoteClient
from claw.errors import ConfigError
from claw.server.auth import TOKEN_ENV, resolve_token
from claw.tools.base import ApprovalRequest, Decision
from claw.vocab.session_keys import main_session_key, normalize_session_key

if TYPE_CHECKING:
    from claw.paths import Paths


def gateway_url(paths: Paths, url: str | None) -> str | None:
    """The explicit URL, else the running local gateway's, else None (run in-process)."""
    if url:
        return url
    from claw.server.runtime_file import read_runtime

    info = read_runtime(paths)
    return info.url if info is not None else None


async def run_remote_turn(
    paths: Paths,
    url: str,
    message: str,
    *,
    agent_id: str,
    session: str | None,
    model: str | None,
    json_out: bool,
    explicit: bool,
) -> int | None:
    """The exit code of the turn; None when a discovered gateway is not listening (a stale runtime file)."""
    token, _source = resolve_token(paths)
    if token is None:
        raise ConfigError(f"no gateway token to connect with: set {TOKEN_ENV} or run `claw init`")
    expected = normalize_session_key(session, agent_id) if session else main_session_key(agent_id)

    async def approve(request: ApprovalRequest) -> Decision | None:
        if request.session_key != expected:
            return None  # another client's question: leave it to them
        return await ask_on_terminal(request)

    try:
        client = await RemoteClient.connect(
            url,
            token,
            approver=approve if wants_terminal_approvals(json_out) else None,
            open_timeout=5.0 if explicit else 2.0,
        )
    except GatewayNotListening:
        if explicit:
            raise
        return None
    try:
        return await drive_turn(client, message, agent_id=agent_id, session=session, model=model, json_out=json_out)
    finally:
        await client.close()
