"""Vector search over quantised copies of a LanceDB table's vectors, updated incrementally.

Why: LanceDB's flat KNN re-reads the whole vector column on every query (~350 ms of a
~400 ms query at 100k rows), and its ANN indexes took ~3 minutes to build at 100k on 2
cores. Keeping every vector in RAM as float32 (1.5 KB per chunk, reloaded after each change:
987 ms at 100k) does not scale to a million chunks. So each row is kept twice, small:

- 48 bytes of sign bits (of the vector minus the table's mean vector): a Hamming scan of
  1M rows takes ~15 ms and picks a few thousand candidates;
- 384 int8 components + one float32 scale per row (memory-mapped from the cache file, so
  only the candidates' pages are touched): the candidates are re-scored to ~1e-3 of their
  cosine; the store then re-ranks its final few in float32 read back from Lance by row id.

Rows live in immutable *segments* keyed by LanceDB row ids. A new table version is
diffed against the snapshot (live row ids only, no vectors read): rows that vanished are
marked dead, new ones read; rows a compaction moved are recognised by their chunk id's
hash and keep their codes (vsync.py). vcache.py saves segments, so start-up reads no vectors.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np

CANDIDATES = 2048  # Hamming candidates re-scored in int8: at 1M rows, recall@10 0.993 on the
# tuning split (anthropic-docs questions; 1,024: 0.976, 4,096: 0.995); bench/scale.py reports the other split
READ_BATCH = 65_536  # rows of vectors read from Lance per call (bounded memory)
_BLAS: Any = None


def one_blas_thread() -> AbstractContextManager:
    """BLAS on one thread for a product (hybrid search runs full-text search on the other core
    meanwhile). A no-op without threadpoolctl."""
    global _BLAS
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController

            _BLAS = ThreadpoolController()
        except Exception:  # noqa: BLE001 - only a speed-up
            _BLAS = False
    return _BLAS.limit(limits=1, user_api="blas") if _BLAS else contextlib.nullcontext()


def key_of(chunk_ids: Sequence[str]) -> np.ndarray:
    """64-bit hashes of chunk ids: how a row moved by compaction is recognised."""
    return np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(c.encode(), digest_size=8).digest(), "little")
            for c in chunk_ids
        ),
        dtype=np.uint64,
        count=len(chunk_ids),
    )


@dataclass(frozen=True)
class Segment:
    """Rows read together. Codes (keys, scale, q8, bits) never change; a changed rowids or
    alive array is a new Segment (snapshots are shared with searching threads)."""

    rowids: np.ndarray  # uint64 (n,) LanceDB _rowid
    alive: np.ndarray  # bool (n,)
    keys: np.ndarray  # uint64 (n,) chunk-id hashes
    scale: np.ndarray  # float32 (n,) cosine = scale * (q8 . query)
    q8: np.ndarray  # int8 (n, dim)
    bits: np.ndarray  # uint64 (words, n): sign bits of (vector - mean), column-major
    name: str = ""  # its folder in the cache once saved

    @functools.cached_property
    def dead(self) -> np.ndarray:
        return np.flatnonzero(~self.alive)

    def codes(self) -> dict[str, np.ndarray]:
        """The arrays that never change, by the name the cache saves each under."""
        return {"keys": self.keys, "scale": self.scale, "q8": self.q8, "bits": self.bits}


@dataclass(frozen=True)
class Snapshot:
    version: int
    segments: tuple[Segment, ...]
    mean: np.ndarray  # float32 (dim,): centres the sign bits
    mean_rows: int = 0  # table rows when the mean was chosen (recentred once grown 4x)

    @property
    def count(self) -> int:
        return int(sum(s.alive.sum() for s in self.segments))


def encode(vectors: np.ndarray, mean: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scale, q8, bits) of rows (normalised here)."""
    v = np.asarray(vectors, dtype=np.float32)
    v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
    peak = np.maximum(np.abs(v).max(axis=1), 1e-12)
    q8 = np.round(v * (127.0 / peak)[:, None]).astype(np.int8)
    return (peak / 127.0).astype(np.float32), q8, _bits(v - mean)


def _bits(centred: np.ndarray) -> np.ndarray:
    packed = np.packbits(centred > 0, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed.view(np.uint64).T)


def segment(
    rowids: np.ndarray, chunk_ids: Sequence[str], vectors: np.ndarray, mean: np.ndarray
) -> Segment:
    scale, q8, bits = encode(vectors, mean)
    return Segment(
        np.asarray(rowids, dtype=np.uint64),
        np.ones(len(rowids), bool),
        key_of(chunk_ids),
        scale,
        q8,
        bits,
    )


def rows_of(q8: Any, idx: np.ndarray) -> np.ndarray:
    """Rows of an in-RAM array or of codes on disk (vcache.DiskRows: read, not mapped)."""
    return np.asarray(q8[idx])


def hamming(seg: Segment, qbits: np.ndarray) -> np.ndarray:
    """Bits differing from the query's per row (dead rows: the maximum)."""
    n = len(seg.rowids)
    acc = np.zeros(n, np.uint16)
    tmp = np.empty(n, np.uint64)
    cnt = np.empty(n, np.uint8)
    for w in range(seg.bits.shape[0]):
        np.bitwise_xor(seg.bits[w], qbits[w], out=tmp)
        np.bitwise_count(tmp, out=cnt)
        acc += cnt
    acc[seg.dead] = np.iinfo(np.uint16).max
    return acc


SCOPE_EXACT = 20_000  # a scope of at most this many rows is re-scored whole (no Hamming
# pass over the table: reading its codes costs less than sign bits of every row)


def top(
    snap: Snapshot,
    vector: np.ndarray,
    n: int,
    candidates: int | None = None,
    within: Sequence[np.ndarray] | None = None,
) -> list[tuple[int, float]]:
    """(row id, approximate cosine) of the n best rows, best first: Hamming candidates
    re-scored in int8 (every live row is re-scored when there are few). ``within``: one
    boolean mask a segment (``in_rows``); only its rows are candidates, so a scope of one
    document is searched exactly and a wide one by its own nearest codes."""
    if n <= 0 or not snap.segments:
        return []
    candidates = max(candidates or CANDIDATES, n)
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    q = q / (np.linalg.norm(q) or 1.0)
    live = (
        [s.alive & m for s, m in zip(snap.segments, within)]
        if within is not None
        else [s.alive for s in snap.segments]
    )
    total = (
        sum(int(a.sum()) for a in live)
        if within is not None
        else sum(len(s.rowids) for s in snap.segments)
    )
    if total <= (candidates if within is None else max(candidates, SCOPE_EXACT)):
        picks = [np.flatnonzero(a) for a in live]
    else:
        qbits = _bits((q - snap.mean)[None, :])[:, 0]
        dist = [hamming(s, qbits) for s in snap.segments]
        if within is not None:  # rows outside the scope: never within the cut
            for d, a in zip(dist, live):
                d[~a] = np.iinfo(np.uint16).max
        cum = np.cumsum(np.bincount(np.concatenate(dist), minlength=1))
        cut = int(np.searchsorted(cum, candidates))  # every row within this distance
        picks = [np.flatnonzero((d <= cut) & a) for d, a in zip(dist, live)]
    ids, sims = [], []
    with one_blas_thread():
        for s, idx in zip(snap.segments, picks):
            if len(idx):
                ids.append(s.rowids[idx])
                sims.append((rows_of(s.q8, idx).astype(np.float32) @ q) * s.scale[idx])
    if not ids:
        return []
    rid, sim = np.concatenate(ids), np.concatenate(sims)
    n = min(n, len(sim))
    best = np.argpartition(-sim, n - 1)[:n] if n < len(sim) else np.arange(len(sim))
    best = best[np.argsort(-sim[best], kind="stable")]
    return [(int(rid[i]), float(sim[i])) for i in best]


def in_rows(snap: Snapshot, rowids: np.ndarray) -> tuple[np.ndarray, ...]:
    """One boolean mask a segment: which of its rows are among ``rowids`` (``top``'s
    ``within``)."""
    return tuple(np.isin(s.rowids, rowids) for s in snap.segments)


def centroid(snap: Snapshot, dim: int, block: int = 65_536) -> np.ndarray:
    """The mean of the live rows' unit vectors, decoded a block at a time."""
    total, n = np.zeros(dim, np.float64), 0
    for seg in snap.segments:
        for a in range(0, len(seg.rowids), block):
            live = np.asarray(seg.alive[a : a + block])
            q = np.asarray(seg.q8[a : a + block])[live].astype(np.float32)
            total += (q * np.asarray(seg.scale[a : a + block])[live][:, None]).sum(axis=0)
            n += int(live.sum())
    return (total / max(n, 1)).astype(np.float32)


def _mean(vecs: np.ndarray) -> np.ndarray:
    v = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    return v.mean(axis=0).astype(np.float32)
