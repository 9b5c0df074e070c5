"""The fuzzy session picker (Ctrl+P): Textual's command palette, fed with this agent's sessions."""

from __future__ import annotations

from functools import partial
from typing import Any, Protocol

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message

from claw.client.protocol import GatewayClient
from claw.tui.format import ago, short_key


class SessionPicked(Message):
    """Posted to the screen that opened the picker."""

    def __init__(self, session_key: str) -> None:
        super().__init__()
        self.session_key = session_key


class _PickerHost(Protocol):
    api: GatewayClient
    agent_id: str


class SessionsProvider(Provider):
    """Matches the query against each session's key and last-message preview."""

    async def startup(self) -> None:
        host: Any = self.screen  # the chat screen that opened the palette
        self.host: _PickerHost = host
        self.rows: list[dict[str, Any]] = await host.api.call("sessions.list", agentId=host.agent_id)

    def _label(self, row: dict[str, Any]) -> str:
        return f"{short_key(row['sessionKey'])}  ·  {row.get('preview') or '(empty)'}"

    def _help(self, row: dict[str, Any]) -> str:
        return f"{row['sessionKey']} · {row.get('messages', 0)} messages · {ago(row.get('updatedAt'))}"

    def _pick(self, session_key: str) -> None:
        self.screen.post_message(SessionPicked(session_key))

    async def discover(self) -> Hits:
        for row in self.rows:
            yield DiscoveryHit(self._label(row), partial(self._pick, row["sessionKey"]), help=self._help(row))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for row in self.rows:
            label = self._label(row)
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), partial(self._pick, row["sessionKey"]), help=self._help(row))
