"""Model failover: try the session's model, then the fallbacks, cooling down the ones that fail.

Only errors that another model could avoid (rate limits, 5xx, timeouts, connection
and auth failures) move on to the next candidate, and only before any output was
streamed; a context overflow is left to compaction. Each move is reported through
`on_failover` so that it shows up as an event in the run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from claw.config import Config, ProviderSettings
from claw.providers.base import ChatRequest, ModelDelta, ModelError, ModelProvider
from claw.providers.metering import CallGuard, CallObserver, current_scope, metered
from claw.providers.openai_compat import OpenAICompatProvider
from claw.providers.reasoning_switch import current_level
from claw.providers.refs import BUILTIN_PROVIDERS, ModelRef, parse_model_ref

log = logging.getLogger(__name__)

COOLDOWN_STEPS = (60.0, 300.0, 1500.0, 3600.0)

FailoverCallback = Callable[[str, str, ModelError], Awaitable[None]]


@dataclass(slots=True)
class _Cooldown:
    until: float
    failures: int


class ModelRouter:
    """Resolves model refs to providers and streams with failover across a candidate chain."""

    def __init__(
        self,
        config: Config,
        provider_factory: Callable[[str, ProviderSettings], ModelProvider] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._factory = provider_factory or (lambda name, settings: OpenAICompatProvider(name, settings))
        self._providers: dict[str, ModelProvider] = {}
        self._cooldowns: dict[str, _Cooldown] = {}
        self._clock = clock
        self._known = frozenset(BUILTIN_PROVIDERS | set(config.providers))
        self.observers: list[CallObserver] = []
        """Told of every finished model call (the usage ledger); see `claw.providers.metering`."""
        self.guards: list[CallGuard] = []
        """Asked before each model request (budgets); one that raises refuses it."""
        self.extra_bodies: dict[str, dict[str, Any]] = {}
        """Model ref → fields every request to it carries in its body: Ollama's `options.num_ctx`, set by the
        context manager when it sizes a prompt (claw/providers/ollama_options.py), so compaction's and the
        memory flush's calls get it too."""

    def resolve(self, ref: str) -> ModelRef:
        return parse_model_ref(ref, self._known)

    async def aclose(self) -> None:
        """Close every provider that holds connections."""
        providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            close = getattr(provider, "aclose", None)
            if close is not None:
                try:
                    await close()
                except Exception:
                    log.warning("closing model provider %s failed", provider.name, exc_info=True)

    def provider_settings(self, name: str) -> ProviderSettings:
        """Provider `name`'s settings from config (the defaults when config has none)."""
        return self._config.providers.get(name, ProviderSettings())

    def provider(self, name: str) -> ModelProvider:
        if name not in self._providers:
            settings = self._config.providers.get(name, ProviderSettings())
            self._providers[name] = self._factory(name, settings)
        return self._providers[name]

    def candidates(self, chain: list[str]) -> list[str]:
        """`chain` with models in cooldown moved to the end, soonest-available first."""
        now = self._clock()
        ready = [r for r in chain if self._cooldown_left(r, now) <= 0]
        cooling = sorted((r for r in chain if r not in ready), key=lambda r: self._cooldowns[r].until)
        return ready + cooling

    async def stream(
        self,
        chain: list[str],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_failover: FailoverCallback,
    ) -> AsyncIterator[tuple[str, ModelDelta]]:
        """Yield `(model_ref, delta)` from the first candidate that answers."""
        failures: list[str] = []
        for guard in self.guards:
            await guard(current_scope())
        candidates = self.candidates(chain)
        for i, ref in enumerate(candidates):
            model = self.resolve(ref)
            produced = False
            try:
                request = ChatRequest(
                    model.model, messages, tools, reasoning=current_level(), extra_body=self.extra_bodies.get(ref)
                )
                deltas = self.provider(model.provider).stream(request)
                async for delta in metered(deltas, model.provider, model.model, messages, self.observers):
                    produced = True
                    yield ref, delta
                self._cooldowns.pop(ref, None)
                return
            except ModelError as exc:
                if produced or not exc.fails_over:
                    raise
                self._cool_down(ref)
                failures.append(f"{ref}: {exc.message}")
                # INFO, not WARNING: the failure reaches the user already (the run's failover event, or its
                # error when no model is left), and a `claw agent` that sets up no logging would print a
                # warning a second time, through Python's last-resort handler. The gateway's log has INFO.
                log.info("model %s failed (%s): %s", ref, exc.kind, exc.message)
                if i + 1 < len(candidates):
                    await on_failover(ref, candidates[i + 1], exc)
                elif len(candidates) == 1:  # named like each of "every model failed: …"
                    raise ModelError(exc.kind, f"{ref}: {exc.message}", status=exc.status) from None
                else:
                    raise ModelError(
                        exc.kind, "every model failed: " + "; ".join(failures), status=exc.status
                    ) from None

    def _cooldown_left(self, ref: str, now: float) -> float:
        cd = self._cooldowns.get(ref)
        return 0.0 if cd is None else cd.until - now

    def _cool_down(self, ref: str) -> None:
        previous = self._cooldowns.get(ref)
        failures = previous.failures + 1 if previous else 1
        step = COOLDOWN_STEPS[min(failures, len(COOLDOWN_STEPS)) - 1]
        self._cooldowns[ref] = _Cooldown(self._clock() + step, failures)
