"""Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint, through the official client.

The memory index runs in a worker thread, so this uses the synchronous client; `openai`
is imported on the first call only. The endpoint is found the way chat models find
theirs: `memory.embeddings.baseUrl`, else the named provider's `baseUrl`, else the
provider's usual local URL, else the client's own `OPENAI_BASE_URL`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from claw.config import ProviderSettings
from claw.errors import ClawError
from claw.providers.openai_compat import DEFAULT_BASE_URLS
from claw.settings.memory import EmbeddingSettings


class EmbeddingError(ClawError):
    """The embeddings endpoint could not be used; search falls back to keywords."""


class Embedder(Protocol):
    """Turns texts into vectors; `model` names what produced them (stored with the index)."""

    model: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def close(self) -> None:
        """Release what `embed` opened (an HTTP connection pool)."""


class OpenAIEmbedder:
    """`embeddings.create` against the configured endpoint, in batches of `batch_size`."""

    def __init__(
        self,
        settings: EmbeddingSettings,
        providers: Mapping[str, ProviderSettings],
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if not settings.model:
            raise ValueError("no embeddings model configured")
        self.model = settings.model
        self._settings = settings
        self._provider = providers.get(settings.provider, ProviderSettings())
        self._env = os.environ if environ is None else environ
        self._client: Any = None
        self._lock = threading.Lock()

    def _make_client(self) -> Any:
        from openai import OpenAI

        s, p, name = self._settings, self._provider, self._settings.provider
        base_url = s.base_url or p.base_url or (None if name == "openai" else DEFAULT_BASE_URLS.get(name))
        api_key = p.api_key or (self._env.get(p.api_key_env) if p.api_key_env else None)
        if api_key is None:
            api_key = self._env.get("OPENAI_API_KEY" if name == "openai" else f"{name.upper()}_API_KEY")
        return OpenAI(api_key=api_key or "not-needed", base_url=base_url, timeout=s.timeout_seconds, max_retries=1)

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()  # its pooled connections: left to the collector, each warned as an unclosed socket

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import openai

        with self._lock:
            if self._client is None:
                self._client = self._make_client()
        out: list[list[float]] = []
        size = self._settings.batch_size
        for start in range(0, len(texts), size):
            batch = [t if t.strip() else " " for t in texts[start : start + size]]
            params: dict[str, Any] = {"model": self.model, "input": batch}
            if self._settings.dimensions:
                params["dimensions"] = self._settings.dimensions
            try:
                response = self._client.embeddings.create(**params)
            except openai.APIError as exc:
                raise EmbeddingError(f"embeddings endpoint failed ({self.model}): {_short(exc)}") from None
            rows = sorted(response.data, key=lambda item: item.index)
            if len(rows) != len(batch):
                raise EmbeddingError(f"embeddings endpoint returned {len(rows)} vectors for {len(batch)} texts")
            out.extend(list(row.embedding) for row in rows)
        return out


def make_embedder(settings: EmbeddingSettings, providers: Mapping[str, ProviderSettings]) -> Embedder | None:
    """The configured embedder, or None when `memory.embeddings.model` is unset (keyword-only search)."""
    return OpenAIEmbedder(settings, providers) if settings.model else None


def _short(exc: Exception) -> str:
    text = str(getattr(exc, "message", None) or exc)
    return text if len(text) <= 200 else text[:199] + "…"
