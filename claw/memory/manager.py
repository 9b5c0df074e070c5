"""`MemoryManager`: the async face of every agent's memory index, shared by tools, recall, RPC and CLI.

Each agent gets one `MemoryIndex` (its own SQLite file) on first use. Every search first
syncs the index with the files, which costs a `stat` per memory file when nothing changed,
so a note the agent wrote a moment ago is found by its next search. The blocking work runs
in worker threads, except a keyword-only search over an index that is already in sync (see
`_search_here`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from claw.config import Config
from claw.memory.embeddings import make_embedder
from claw.memory.index import MemoryIndex, SyncReport
from claw.memory.search import SearchOutcome, SearchParams, search
from claw.paths import Paths
from claw.settings.memory import MemorySettings

LOOP_SEARCH_MAX_FILES = 200
"""Above this many memory files, even an in-sync check (a stat per file) goes to a worker thread."""


class MemoryManager:
    """Memory indexes by agent id, created lazily and closed with the gateway."""

    def __init__(self, paths: Paths, config: Config, workspace_of: Callable[[str], Path]) -> None:
        self._paths = paths
        self._config = config
        self._workspace_of = workspace_of
        self._indexes: dict[str, MemoryIndex] = {}

    @property
    def settings(self) -> MemorySettings:
        return self._config.memory

    def workspace(self, agent_id: str) -> Path:
        """The agent's workspace, where its MEMORY.md and memory/ are; a `ConfigError` naming the configured
        agents for an agent that is not one of them."""
        return self._workspace_of(agent_id)

    def index(self, agent_id: str) -> MemoryIndex:
        found = self._indexes.get(agent_id)
        if found is None:
            s = self.settings
            found = MemoryIndex(
                self._paths.memory_index(agent_id),
                self._workspace_of(agent_id),
                chunk_tokens=s.chunk_tokens,
                chunk_overlap=s.chunk_overlap,
                embedder=make_embedder(s.embeddings, self._config.providers),
            )
            self._indexes[agent_id] = found
        return found

    def params(self, query: str, max_results: int | None = None, min_score: float | None = None) -> SearchParams:
        s = self.settings
        return SearchParams(
            query=query,
            max_results=max_results or s.max_results,
            min_score=s.min_score if min_score is None else min_score,
            vector_weight=s.vector_weight,
            text_weight=s.text_weight,
            candidate_multiplier=s.candidate_multiplier,
        )

    async def search(self, agent_id: str, params: SearchParams) -> SearchOutcome:
        index = self.index(agent_id)
        quick = self._search_here(index, params)
        if quick is not None:
            return quick

        def go() -> SearchOutcome:
            index.sync()
            return search(index, params)

        return await asyncio.to_thread(go)

    @staticmethod
    def _search_here(index: MemoryIndex, params: SearchParams) -> SearchOutcome | None:
        """The search, done on the calling (event loop) thread when that is cheap: keyword-only, a
        modest number of files, nothing to re-index, and no other thread inside the index. Recall
        runs before every turn; a few stats and one FTS query cost less than a worker hand-off."""
        if index.embedder is not None or index.files_seen > LOOP_SEARCH_MAX_FILES:
            return None
        if not index.lock.acquire(blocking=False):
            return None
        try:
            return search(index, params) if index.in_sync() else None
        finally:
            index.lock.release()

    async def sync(self, agent_id: str, *, force: bool = False) -> SyncReport:
        index = self.index(agent_id)
        return await asyncio.to_thread(index.sync, force=force)

    async def status(self, agent_id: str) -> dict[str, Any]:
        index = self.index(agent_id)
        report = await asyncio.to_thread(index.sync)
        stats = await asyncio.to_thread(index.status)
        embeddings = self.settings.embeddings
        return {
            "agentId": agent_id,
            "workspace": str(index.workspace),
            "index": str(index.db_path),
            **stats,
            "embeddings": {
                "enabled": embeddings.model is not None,
                "model": embeddings.model,
                "provider": embeddings.provider if embeddings.model else None,
                "error": report.embedding_error,
            },
            "mode": "hybrid" if embeddings.model else "keyword",
        }

    def close(self) -> None:
        for index in self._indexes.values():
            index.close()
        self._indexes.clear()
