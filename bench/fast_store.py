"""The proposed change to ``localcrag.store.LanceStore`` (patch 01): exact vector search
from RAM, as a subclass so the bench can measure it next to the current store.

Measured cause (``analyze_plan`` at 100k rows): LanceDB's flat KNN re-reads the whole
vector column (153.6 MB) from the table files on every query (~350 ms in ``LanceRead``)
while the distances themselves take ~12 ms. An ANN index (IVF_PQ, IVF_HNSW_SQ) answers
in ~10 ms but takes ~3 min to build at 100k on 2 cores and returns approximate results.
Here the unit-normalised vectors live in one float32 matrix (1.5 KB per chunk), loaded
on the first search and reloaded whenever the table version changes; a query is one
matrix-vector product, ``argpartition``, and a ``take_offsets`` of the top rows: the same
exact cosine ranking LanceDB's flat search returns. Hybrid search is unchanged (it calls
``_vector``).
"""

from __future__ import annotations

import threading

import numpy as np

from localcrag.store import _COLUMNS, LanceStore


class RamVectorStore(LanceStore):
    """LanceStore whose vector search runs over an in-memory copy of the vectors."""

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self._mat: np.ndarray | None = None
        self._mat_version: int | None = None
        self._mat_lock = threading.Lock()

    def _matrix(self) -> np.ndarray:
        """The table's vectors, unit-normalised, in scan (offset) order; cached per version."""
        version = self.table.version
        if self._mat is None or self._mat_version != version:
            with self._mat_lock:
                if self._mat is None or self._mat_version != version:
                    m = self.all_vectors()
                    norms = np.linalg.norm(m, axis=1, keepdims=True)
                    self._mat = m / np.where(norms > 0, norms, 1.0)
                    self._mat_version = version
        return self._mat

    def _vector(self, vector: np.ndarray, n: int) -> list[dict]:
        m = self._matrix()
        if len(m) == 0 or n <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        sims = m @ (q / (np.linalg.norm(q) or 1.0))
        n = min(n, len(sims))
        top = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
        top = top[np.argsort(-sims[top], kind="stable")]
        offsets = sorted(int(i) for i in top)  # take_offsets returns rows in offset order
        rows = self.table.take_offsets(offsets).select(_COLUMNS).to_list()
        by_offset = dict(zip(offsets, rows))
        return [{**by_offset[int(o)], "_distance": 1.0 - float(sims[o])} for o in top]
