"""What a model call cost: tokens times the price of its model, in US dollars.

Which price applies, first match wins:

1. config's `[models.prices."provider/model"]` (claw/settings/usage.py);
2. free, when the call went to a local server: a keyless provider (ollama, vllm, llamacpp, lmstudio)
   or any endpoint on a loopback address — decided when the call was made and kept with its row;
3. the shipped table below, taken from the providers' public price pages on `DEFAULTS_TAKEN`;
4. none: the call has no cost, shown as "—" (never a guess shown as a fact).

Costs are never frozen into the ledger as the truth: views price each row's tokens with the prices
known *now*, so a price fixed in config re-prices every view and no row's tokens are rewritten. The
cost each row was given when written is kept beside it (`cost_at_call`), for an audit.

Token counts follow OpenAI's reporting: `input` includes cache reads and writes, `output` includes
reasoning tokens. So the uncached input is `input − cached − written`, and reasoning is not added again.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from claw.settings.usage import ModelPrice

DEFAULTS_TAKEN = "2025-08-07"
"""When the shipped prices were read off the providers' pages; they change, config overrides them."""


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens; None for the cache prices means "as input"."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None

    @classmethod
    def of(cls, setting: ModelPrice) -> Price:
        return cls(setting.input, setting.output, setting.cached_input, setting.cache_write)


FREE = Price(0.0, 0.0, 0.0, 0.0)

DEFAULT_PRICES: Mapping[str, Price] = {
    "openai/gpt-5": Price(1.25, 10.00, 0.125),
    "openai/gpt-5-mini": Price(0.25, 2.00, 0.025),
    "openai/gpt-5-nano": Price(0.05, 0.40, 0.005),
    "openai/gpt-4.1": Price(2.00, 8.00, 0.50),
    "openai/gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "openai/gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "openai/gpt-4o": Price(2.50, 10.00, 1.25),
    "openai/gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "openai/o3": Price(2.00, 8.00, 0.50),
    "openai/o4-mini": Price(1.10, 4.40, 0.275),
    "openrouter/openai/gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "openrouter/anthropic/claude-sonnet-4": Price(3.00, 15.00, 0.30, 3.75),
    "openrouter/anthropic/claude-opus-4.1": Price(15.00, 75.00, 1.50, 18.75),
    "openrouter/anthropic/claude-3.5-haiku": Price(0.80, 4.00, 0.08, 1.00),
}
"""Hosted models' list prices on `DEFAULTS_TAKEN`, by `provider/model` as claw's model refs spell them."""

LOCAL_PROVIDERS = frozenset({"ollama", "vllm", "llamacpp", "lmstudio"})


def is_local(provider: str, base_url: str | None) -> bool:
    """True when calls to this endpoint cost nothing: a local server's provider name with no other URL
    configured, or a base URL whose host is a loopback address (`127.0.0.1`, `::1`, `localhost`)."""
    if base_url is None:
        return provider in LOCAL_PROVIDERS
    host = urlsplit(base_url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class PriceBook:
    """The prices in effect: config's over local-is-free over the shipped table."""

    def __init__(self, configured: Mapping[str, ModelPrice] | None = None) -> None:
        self._configured = {ref: Price.of(p) for ref, p in (configured or {}).items()}

    def price(self, provider: str, model: str, local: bool) -> Price | None:
        ref = f"{provider}/{model}"
        if ref in self._configured:
            return self._configured[ref]
        if local:
            return FREE
        return DEFAULT_PRICES.get(ref)

    def cost(self, provider: str, model: str, local: bool, tokens: Tokens) -> float | None:
        price = self.price(provider, model, local)
        return None if price is None else cost_of(price, tokens)


@dataclass(frozen=True, slots=True)
class Tokens:
    input: int = 0
    output: int = 0
    cached_input: int = 0
    cache_write: int = 0


def cost_of(price: Price, tokens: Tokens) -> float:
    """Dollars for `tokens` at `price` (see the module docstring for what the counts include)."""
    cached = min(tokens.cached_input, tokens.input)
    written = min(tokens.cache_write, tokens.input - cached)
    plain = tokens.input - cached - written
    read_price = price.input if price.cached_input is None else price.cached_input
    write_price = price.input if price.cache_write is None else price.cache_write
    total = plain * price.input + cached * read_price + written * write_price + tokens.output * price.output
    return total / 1_000_000


def format_cost(cost: float | None, unpriced: int = 0) -> str:
    """`$0.0123`, `—` for no known price, and a `+` when some calls in the sum had none."""
    if cost is None:
        return "—"
    shown = f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"
    return shown + ("+" if unpriced else "")
