"""`ask_accounts`: how each platform's `claw doctor --online` asks the platform about every account at once.

The platform's doctor says which accounts can be asked (those with their credentials: the others are
already failed offline) and how one is asked; the questions go out together, so a doctor run with several
accounts waits for the slowest answer, not for their sum.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol, TypeVar

from claw.finding import Finding

A = TypeVar("A")
A_co = TypeVar("A_co", covariant=True)


class PlatformSettings(Protocol[A_co]):
    """A platform's settings table: whether it is enabled, and its accounts by id."""

    @property
    def enabled(self) -> bool: ...

    def effective_accounts(self) -> Mapping[str, A_co]: ...


def ask_accounts(
    settings: PlatformSettings[A], can_ask: Callable[[A], object], ask: Callable[[str, A], Awaitable[Finding]]
) -> list[Finding]:
    """One finding per account that `can_ask`, from `ask(account_id, account)`, all asked concurrently."""
    if not settings.enabled:
        return []
    accounts = [(account_id, a) for account_id, a in settings.effective_accounts().items() if can_ask(a)]
    if not accounts:
        return []

    async def ask_all() -> list[Finding]:
        return list(await asyncio.gather(*(ask(account_id, a) for account_id, a in accounts)))

    return asyncio.run(ask_all())
