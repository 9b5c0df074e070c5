"""`InboxBatch`: what is read while a commit is under way goes into the next commit, with the state of the
last message in it; a failed commit is retried holding its messages; a full backlog makes `add` wait."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from claw.channels.inbox_batch import InboxBatch
from claw.errors import ClawError


class Host:
    """Records each `accept` (one transaction); `gate` holds commits until set, `failures` fail the next ones."""

    def __init__(self, failures: int = 0) -> None:
        self.commits: list[tuple[list[Any], dict[str, str]]] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.started = asyncio.Event()
        self.failures = failures

    async def accept(
        self, channel: str, account_id: str, inbound: Sequence[Any], state: Mapping[str, str] | None = None
    ) -> list[bool]:
        self.started.set()
        await self.gate.wait()
        if self.failures:
            self.failures -= 1
            raise ClawError("gateway.db is busy")
        self.commits.append((list(inbound), dict(state or {})))
        return [True] * len(inbound)


def batch(host: Host, **kw: Any) -> InboxBatch:
    return InboxBatch(host, "discord", "default", **kw)  # type: ignore[arg-type]


async def test_messages_read_during_a_commit_share_the_next_one_with_the_last_state() -> None:
    host = Host()
    host.gate.clear()
    b = batch(host)
    await b.add(["m1"], {"seq": "1"})
    await host.started.wait()
    await b.add(["m2"], {"seq": "2"})
    await b.add([], {"session_id": "s2"})
    await b.add(["m3"], {"seq": "3"})
    host.gate.set()
    await b.flush()
    assert host.commits == [(["m1"], {"seq": "1"}), (["m2", "m3"], {"seq": "3", "session_id": "s2"})]


async def test_a_failed_commit_is_retried_with_its_messages() -> None:
    host = Host(failures=2)
    b = batch(host)
    await b.add(["m1"], {"seq": "1"})
    await asyncio.wait_for(b.flush(), 5)
    assert host.commits == [(["m1"], {"seq": "1"})]


async def test_a_full_backlog_makes_add_wait_until_a_commit_takes_it() -> None:
    host = Host()
    host.gate.clear()
    b = batch(host, max_backlog=2)
    await b.add(["m1"])
    await host.started.wait()  # m1 is in flight; the backlog is empty again
    await b.add(["m2"])
    await b.add(["m3"])
    third = asyncio.create_task(b.add(["m4"]))
    await asyncio.sleep(0.05)
    assert not third.done()
    host.gate.set()
    await asyncio.wait_for(third, 5)
    await b.flush()
    assert [m for messages, _state in host.commits for m in messages] == ["m1", "m2", "m3", "m4"]
