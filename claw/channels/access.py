"""Who may talk to the agent through a channel, failing closed (openclaw-spec §10.5).

Direct messages follow `dmPolicy`: `disabled` drops them; `open` (only with `allowFrom = ["*"]`)
admits anyone; `allowlist` admits the senders in `allowFrom` and those approved by pairing;
`pairing` (the default) admits the same and answers anyone else with a pairing code — without
calling the model. An empty allowlist admits nobody.

Groups follow `groupPolicy`: `disabled`; `allowlist` (the default: only groups listed under
`groups`, or every group with `"*"`); `open`. Within a group, a sender allowlist (the group's
`allowFrom`, else `groupAllowFrom`) applies when it is set, and the bot must be mentioned unless
`requireMention = false` (per group, or for the account). A standalone `/command` from an
authorised sender needs no mention.

*Authorised* senders (listed by id in an allowlist, or approved by pairing — a `"*"` does not
make anyone authorised) may run slash commands and the owner-only tools; for everyone else a
`/command` is plain text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Self

from claw.settings.channel_access import WILDCARD
from claw.vocab.command_syntax import parse_command
from claw.vocab.msg_context import MsgContext

Action = Literal["allow", "pair", "ignore"]


@dataclass(frozen=True, slots=True)
class GroupRule:
    require_mention: bool | None = None
    allow_from: tuple[str, ...] | None = None

    @classmethod
    def table(cls, entries: Mapping[str, Any]) -> dict[str, GroupRule]:
        """A platform's `groups` / `channels` / `guilds` settings (each entry with `require_mention` and
        `allow_from`) as rules, by id."""
        return {key: cls(entry.require_mention, entry.allow_from) for key, entry in entries.items()}


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    reason: str
    authorized: bool = False
    """May run slash commands and owner-only tools."""


@dataclass(frozen=True, slots=True)
class AccessPolicy:
    dm_policy: str = "pairing"
    allow_from: tuple[str, ...] = ()
    group_policy: str = "allowlist"
    group_allow_from: tuple[str, ...] = ()
    groups: dict[str, GroupRule] = field(default_factory=dict)
    require_mention: bool = True

    @classmethod
    def of(cls, account: Any, groups: Mapping[str, Any], **extra: Any) -> Self:
        """The policy an account's settings spell the same on every platform (`dmPolicy`, `allowFrom`,
        `groupPolicy`, `groupAllowFrom`, `requireMention`), with its group rules read from `groups` (the
        account's `groups` or `channels` table); `extra`: a platform's own fields (Discord's `guilds`)."""
        return cls(
            dm_policy=account.dm_policy,
            allow_from=account.allow_from,
            group_policy=account.group_policy,
            group_allow_from=account.group_allow_from,
            groups=GroupRule.table(groups),
            require_mention=account.require_mention,
            **extra,
        )

    def decide(self, ctx: MsgContext, *, mentioned: bool, approved: bool) -> Decision:
        listed = ctx.sender_id in self.allow_from or approved
        if ctx.chat_type == "direct":
            return self._direct(listed)
        return self._group(ctx, listed, mentioned)

    def _direct(self, listed: bool) -> Decision:
        if self.dm_policy == "disabled":
            return Decision("ignore", "direct messages are disabled")
        if listed:
            return Decision("allow", "sender is allowed", authorized=True)
        if self.dm_policy == "open" and WILDCARD in self.allow_from:
            return Decision("allow", "direct messages are open")
        if self.dm_policy == "pairing":
            return Decision("pair", "unknown sender: pairing required")
        return Decision("ignore", "sender is not on the allowlist")

    def _group(self, ctx: MsgContext, listed: bool, mentioned: bool) -> Decision:
        group_id = ctx.group_id or ctx.peer_id
        rule = self.groups.get(group_id) or self.groups.get(WILDCARD)
        if self.group_policy == "disabled":
            return Decision("ignore", "group messages are disabled")
        if self.group_policy == "allowlist" and rule is None:
            return Decision("ignore", f"group {group_id} is not allowlisted")
        senders = rule.allow_from if rule is not None and rule.allow_from is not None else self.group_allow_from
        named = ctx.sender_id in senders
        if senders and not named and WILDCARD not in senders:
            return Decision("ignore", "sender may not trigger the bot in this group")
        authorized = listed or named
        require = rule.require_mention if rule is not None and rule.require_mention is not None else None
        if require is None:
            require = self.require_mention
        if require and not mentioned:
            if authorized and parse_command(ctx.body) is not None:
                return Decision("allow", "command from an authorised sender", authorized=True)
            return Decision("ignore", "the bot was not mentioned")
        return Decision("allow", "group message", authorized=authorized)
