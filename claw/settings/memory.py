"""`[memory]` in config.toml: the memory index, its embeddings endpoint (`[memory.embeddings]`), search and recall."""

from __future__ import annotations

from pydantic import Field

from claw.settings_base import HttpUrl, Section


class EmbeddingSettings(Section):
    """An OpenAI-compatible embeddings endpoint for memory search; no `model` means keyword-only search."""

    provider: str = "openai"
    """A provider name (`[providers.<name>]` or a built-in one) whose URL and key are used."""
    model: str | None = None
    base_url: HttpUrl | None = None
    dimensions: int | None = Field(default=None, ge=8)
    batch_size: int = Field(default=64, ge=1, le=2048)
    timeout_seconds: float = Field(default=30.0, gt=0)


class MemorySettings(Section):
    """The memory index over MEMORY.md and memory/*.md, its hybrid search and per-turn recall."""

    enabled: bool = True
    embeddings: EmbeddingSettings = EmbeddingSettings()
    vector_weight: float = Field(default=0.7, ge=0)
    text_weight: float = Field(default=0.3, ge=0)
    chunk_tokens: int = Field(default=400, ge=32, le=8_000)
    """Largest chunk, in estimated tokens: each heading's section is cut into paragraphs packed up to this."""
    chunk_overlap: int = Field(default=80, ge=0)
    """Tokens repeated between consecutive chunks of one long section (sections never overlap)."""
    max_results: int = Field(default=6, ge=1, le=100)
    min_score: float = Field(default=0.35, ge=0, le=1)
    candidate_multiplier: int = Field(default=4, ge=1, le=50)
    recall: bool = True
    """Search memory for each message and put the best hits into the prompt."""
    recall_tokens: int = Field(default=2_000, ge=0)
    recall_max_results: int = Field(default=4, ge=0, le=50)
