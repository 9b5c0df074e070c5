"""Embedding vectors: stored as little-endian float32 blobs, compared by cosine similarity in-process.

Vectors are L2-normalised before they are stored, so cosine similarity is a dot product.
With numpy installed the whole matrix is scored at once; without it a plain loop does the
same arithmetic (slower, still fine for a personal memory of a few thousand chunks).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any

_NUMPY: Any = None


def _numpy() -> Any:
    """numpy if it is installed (imported on first use: it costs ~0.1 s), else False."""
    global _NUMPY
    if _NUMPY is None:
        try:
            import numpy

            _NUMPY = numpy
        except ImportError:  # claw does not depend on numpy; it only uses it when it is there
            _NUMPY = False
    return _NUMPY


def normalise(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else [0.0 for _ in vector]


def pack(vector: Sequence[float]) -> bytes:
    return struct.pack(f"<{len(vector)}f", *vector)


def unpack(blob: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))


class VectorTable:
    """Every chunk's vector held in memory, for scoring a query against all of them."""

    def __init__(self, ids: list[int], blobs: list[bytes]) -> None:
        self.ids = ids
        self._index = {chunk_id: i for i, chunk_id in enumerate(ids)}
        self.dimensions = len(blobs[0]) // 4 if blobs else 0
        self._matrix: Any
        np: Any = _numpy() if blobs else False
        if np:
            self._matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), self.dimensions)
        else:
            self._matrix = [unpack(b) for b in blobs]

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query: Sequence[float]) -> dict[int, float]:
        """Cosine similarity of `query` (normalised here) with every stored vector, by chunk id."""
        if not self.ids or len(query) != self.dimensions:
            return {}
        q = normalise(query)
        np = _numpy()
        if np:
            values = (self._matrix @ np.asarray(q, dtype="<f4")).tolist()
        else:
            values = [sum(a * b for a, b in zip(row, q, strict=True)) for row in self._matrix]
        return dict(zip(self.ids, values, strict=True))
