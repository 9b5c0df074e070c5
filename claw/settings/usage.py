"""Config for usage and cost: prices under `[models.prices."provider/model"]`, budgets under `[usage.budgets]`.

```toml
[models.prices."openai/gpt-4o-mini"]      # US dollars per million tokens
input = 0.15
output = 0.60
cachedInput = 0.075                         # cache reads; unset: billed as input
cacheWrite = 0.1875                         # cache writes; unset: billed as input

[usage.budgets.agents.main]
dailyCost = 2.00                            # and/or monthlyCost, dailyTokens, monthlyTokens
action = "stop"                             # warn: a notice once a period; stop: refuse the next call

[usage.budgets.jobs.nightly-digest]         # an automation job, by id or name
monthlyTokens = 5_000_000
```
Pure pydantic: `claw.config` types its sections with these.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from claw.settings_base import Section

_MAX_PRICE = 100_000.0
_MAX_TOKENS = 10**15


class ModelPrice(Section):
    """What one model costs, in US dollars per million tokens."""

    input: float = Field(ge=0, le=_MAX_PRICE)
    output: float = Field(ge=0, le=_MAX_PRICE)
    cached_input: float | None = Field(default=None, ge=0, le=_MAX_PRICE)
    """Input tokens read from the provider's prompt cache; unset: priced as `input`."""
    cache_write: float | None = Field(default=None, ge=0, le=_MAX_PRICE)
    """Input tokens written to the prompt cache (Anthropic's models charge extra); unset: priced as `input`."""


class Budget(Section):
    """Limits over the calendar day and month (local time); any of them may be set."""

    daily_tokens: int | None = Field(default=None, ge=1, le=_MAX_TOKENS)
    monthly_tokens: int | None = Field(default=None, ge=1, le=_MAX_TOKENS)
    daily_cost: float | None = Field(default=None, gt=0, le=_MAX_PRICE * 1000)
    monthly_cost: float | None = Field(default=None, gt=0, le=_MAX_PRICE * 1000)
    action: Literal["warn", "stop"] = "warn"
    """`warn`: one notice per limit and period, the call goes on; `stop`: calls are refused until the period ends."""


class BudgetSettings(Section):
    agents: dict[str, Budget] = {}
    """Per agent id: every model call of the agent counts (chat, channels, automations, subagents, compaction)."""
    jobs: dict[str, Budget] = {}
    """Per automation job, by id or name: the calls of that job's runs count."""


class UsageSettings(Section):
    """`[usage]`: budgets over the usage ledger."""

    budgets: BudgetSettings = BudgetSettings()
