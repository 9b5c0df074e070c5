"""`MsgContext`: one inbound message, as every layer after the channel adapter sees it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

ChatType = Literal["direct", "group", "channel"]


@dataclass(frozen=True, slots=True)
class MsgContext:
    """An inbound message, normalised by its channel adapter.

    `body` is what the user typed; `body_for_agent` is what the model sees (wrapped
    in untrusted-content markers for content from outside); `raw_body` is the
    platform payload's text before any normalisation.
    """

    body: str
    channel: str = "cli"
    account_id: str = "default"
    chat_type: ChatType = "direct"
    peer_id: str = "local"
    sender_id: str = "local"
    sender_name: str | None = None
    thread_id: str | None = None
    message_id: str | None = None
    group_id: str | None = None
    guild_id: str | None = None
    team_id: str | None = None
    body_for_agent: str | None = None
    raw_body: str | None = None
    session_key: str | None = None
    agent_id: str | None = None
    command_authorized: bool = False
    """Whether the sender may run slash commands and owner-only tools. Fails closed: only the operator's
    own clients (the CLI, the console, authenticated gateway clients) and authorised channel senders set it."""
    attachments: tuple[str, ...] = field(default_factory=tuple)
    system_event: bool = False
    """A note from the system (an automation, a finished subagent), recorded with role `system`."""

    def finalized(self) -> MsgContext:
        """Fill the derived fields: `body_for_agent` and `raw_body` default to `body`."""
        return replace(
            self,
            body_for_agent=self.body if self.body_for_agent is None else self.body_for_agent,
            raw_body=self.body if self.raw_body is None else self.raw_body,
            channel=self.channel.lower(),
        )
