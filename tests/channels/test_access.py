"""Access decisions, failing closed: dmPolicy, allowlists, pairing, groups, mention gating, command rights."""

from __future__ import annotations

import pytest

from claw.channels.access import AccessPolicy, GroupRule
from claw.config import ConfigFile
from claw.vocab.msg_context import MsgContext


def dm(sender: str = "42", body: str = "hi") -> MsgContext:
    return MsgContext(body=body, channel="telegram", chat_type="direct", peer_id=sender, sender_id=sender)


def group(sender: str = "42", body: str = "hi", group_id: str = "-1") -> MsgContext:
    return MsgContext(body=body, channel="telegram", chat_type="group", peer_id=group_id, sender_id=sender,
                      group_id=group_id)  # fmt: skip


def decide(policy: AccessPolicy, ctx: MsgContext, mentioned: bool = False, approved: bool = False) -> tuple:
    d = policy.decide(ctx, mentioned=mentioned, approved=approved)
    return d.action, d.authorized


def test_direct_messages_by_policy() -> None:
    assert decide(AccessPolicy(), dm()) == ("pair", False)  # the default: pairing
    assert decide(AccessPolicy(), dm(), approved=True) == ("allow", True)
    assert decide(AccessPolicy(allow_from=("42",)), dm()) == ("allow", True)
    assert decide(AccessPolicy(dm_policy="allowlist"), dm()) == ("ignore", False)  # empty allowlist: nobody
    assert decide(AccessPolicy(dm_policy="allowlist"), dm(), approved=True) == ("allow", True)
    assert decide(AccessPolicy(dm_policy="open", allow_from=("*",)), dm()) == ("allow", False)  # "*" is not owner
    assert decide(AccessPolicy(dm_policy="open"), dm()) == ("ignore", False)  # open without "*" admits nobody
    assert decide(AccessPolicy(dm_policy="disabled", allow_from=("42",)), dm()) == ("ignore", False)


def test_groups_are_allowlisted_and_need_a_mention_by_default() -> None:
    listed = AccessPolicy(groups={"-1": GroupRule()})
    assert decide(AccessPolicy(), group(), mentioned=True) == ("ignore", False)  # no groups listed: none
    assert decide(listed, group()) == ("ignore", False)  # not mentioned
    assert decide(listed, group(), mentioned=True) == ("allow", False)
    assert decide(listed, group(group_id="-2"), mentioned=True) == ("ignore", False)
    assert decide(AccessPolicy(groups={"*": GroupRule()}), group(group_id="-2"), mentioned=True)[0] == "allow"
    assert decide(AccessPolicy(group_policy="open"), group(), mentioned=True)[0] == "allow"
    assert decide(AccessPolicy(group_policy="disabled", groups={"-1": GroupRule()}), group(), True)[0] == "ignore"
    quiet = AccessPolicy(groups={"-1": GroupRule(require_mention=False)})
    assert decide(quiet, group()) == ("allow", False)
    assert decide(AccessPolicy(groups={"-1": GroupRule()}, require_mention=False), group())[0] == "allow"


def test_group_sender_allowlists_and_commands() -> None:
    senders = AccessPolicy(groups={"-1": GroupRule(allow_from=("7",))})
    assert decide(senders, group("8"), mentioned=True) == ("ignore", False)  # a reply to the bot is no way in
    assert decide(senders, group("7"), mentioned=True) == ("allow", True)
    fallback = AccessPolicy(group_allow_from=("7",), groups={"-1": GroupRule()})
    assert decide(fallback, group("8"), mentioned=True)[0] == "ignore"
    owner = AccessPolicy(allow_from=("42",), groups={"-1": GroupRule()})
    assert decide(owner, group("42", "/status")) == ("allow", True)  # an owner's command needs no mention
    assert decide(owner, group("50", "/reset")) == ("ignore", False)  # anyone else's does, and is not a command
    assert decide(owner, group("50", "/reset"), mentioned=True) == ("allow", False)


def test_open_dm_policy_without_a_star_is_a_config_error() -> None:
    with pytest.raises(ValueError, match=r'dmPolicy "open" needs allowFrom = \["\*"\]'):
        ConfigFile.model_validate({"channels": {"telegram": {"botToken": "x", "dmPolicy": "open"}}})
    with pytest.raises(ValueError, match=r"accounts.work: dmPolicy"):
        ConfigFile.model_validate({"channels": {"telegram": {"accounts": {"work": {"dmPolicy": "open"}}}}})
    raw = {"botToken": "x", "dmPolicy": "open", "allowFrom": ["*"]}
    ok = ConfigFile.model_validate({"channels": {"telegram": raw}})
    assert ok.channels.telegram.effective_accounts()["default"].allow_from == ("*",)


def test_accounts_inherit_the_channel_defaults_and_ids_may_be_numbers() -> None:
    raw = {"allowFrom": [42], "requireMention": False, "accounts": {"a": {"botToken": "t"}, "b": {"allowFrom": []}}}
    accounts = ConfigFile.model_validate({"channels": {"telegram": raw}}).channels.telegram.effective_accounts()
    assert accounts["a"].allow_from == ("42",) and accounts["a"].bot_token == "t"
    assert accounts["b"].allow_from == () and accounts["b"].require_mention is False
    assert ConfigFile.model_validate({}).channels.telegram.effective_accounts() == {}  # not configured: none
