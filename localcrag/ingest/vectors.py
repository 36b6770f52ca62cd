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
hash and keep their codes. vcache.py saves and maps segments, so start-up reads no vectors.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import threading
from dataclasses import dataclass, replace
from typing import Any, ContextManager, Sequence

import numpy as np

CANDIDATES = 2048  # Hamming candidates re-scored in int8: at 1M rows, recall@10 0.993 on the
# tuning split (anthropic-docs questions; 1,024: 0.976, 4,096: 0.995); bench/scale.py reports the other split
READ_BATCH = 65_536  # rows of vectors read from Lance per call (bounded memory)
_BLAS: Any = None


def one_blas_thread() -> ContextManager:
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
    return np.fromiter((int.from_bytes(hashlib.blake2b(c.encode(), digest_size=8).digest(), "little")
                        for c in chunk_ids), dtype=np.uint64, count=len(chunk_ids))


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


def segment(rowids: np.ndarray, chunk_ids: Sequence[str], vectors: np.ndarray, mean: np.ndarray) -> Segment:
    scale, q8, bits = encode(vectors, mean)
    return Segment(np.asarray(rowids, dtype=np.uint64), np.ones(len(rowids), bool), key_of(chunk_ids),
                   scale, q8, bits)


def rows_of(q8: Any, idx: np.ndarray) -> np.ndarray:
    """Rows of an in-RAM array or of codes on disk (vcache.DiskRows: read, not mapped)."""
    return q8.take(idx) if hasattr(q8, "fd") else q8[idx]


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


def top(snap: Snapshot, vector: np.ndarray, n: int, candidates: int | None = None) -> list[tuple[int, float]]:
    """(row id, approximate cosine) of the n best rows, best first: Hamming candidates
    re-scored in int8 (every live row is re-scored when there are few)."""
    if n <= 0 or not snap.segments:
        return []
    candidates = max(candidates or CANDIDATES, n)
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    q = q / (np.linalg.norm(q) or 1.0)
    total = sum(len(s.rowids) for s in snap.segments)
    if total <= candidates:
        picks = [np.flatnonzero(s.alive) for s in snap.segments]
    else:
        qbits = _bits((q - snap.mean)[None, :])[:, 0]
        dist = [hamming(s, qbits) for s in snap.segments]
        cum = np.cumsum(np.bincount(np.concatenate(dist), minlength=1))
        cut = int(np.searchsorted(cum, candidates))  # every row within this distance
        picks = [np.flatnonzero((d <= cut) & s.alive) for d, s in zip(dist, snap.segments)]
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


def centroid(snap: Snapshot, dim: int, block: int = 65_536) -> np.ndarray:
    """The mean of the live rows' unit vectors, decoded a block at a time."""
    total, n = np.zeros(dim, np.float64), 0
    for seg in snap.segments:
        for a in range(0, len(seg.rowids), block):
            live = np.asarray(seg.alive[a:a + block])
            q = np.asarray(seg.q8[a:a + block])[live].astype(np.float32)
            total += (q * np.asarray(seg.scale[a:a + block])[live][:, None]).sum(axis=0)
            n += int(live.sum())
    return (total / max(n, 1)).astype(np.float32)


def live_rowids(table: Any, where: str | None = None) -> np.ndarray:
    """Row ids of the live rows of the table's checked-out version (no column read)."""
    q = table.search().select(["_rowid"])
    q = q.where(where) if where else q
    data = q.limit(max(table.count_rows(), 1)).to_arrow()
    return np.sort(data["_rowid"].to_numpy().astype(np.uint64))


def read_rows(table: Any, rowids: np.ndarray, columns: list[str]) -> Any:
    """Columns (+ _rowid) of the given rows, in batches; an Arrow table."""
    import pyarrow as pa

    parts = [table.take_row_ids([int(r) for r in rowids[i:i + READ_BATCH]]).select(columns)
             .with_row_id().to_arrow() for i in range(0, len(rowids), READ_BATCH)]
    return pa.concat_tables(parts) if parts else None


def matrix(data: Any, dim: int) -> np.ndarray:
    col = data["vector"]
    col = col.combine_chunks() if hasattr(col, "combine_chunks") else col  # table or batch
    flat = col.flatten().to_numpy(zero_copy_only=False)
    return flat.reshape(len(data), dim).astype(np.float32, copy=False)


def full_scan(table: Any, dim: int, mean: np.ndarray) -> Snapshot:
    """Every row's codes, streamed a batch at a time (bounded memory at 1M rows); the mean
    that centres the sign bits is chosen from the first READ_BATCH rows when not given."""
    n = table.count_rows()
    parts, held, version = [], [], table.version
    reader = table.search().select(["chunk_id", "vector", "_rowid"]).limit(max(n, 1)).to_batches(READ_BATCH)
    for batch in itertools.chain(reader, [None]):  # None: flush what is held
        if batch is not None:
            held.append((batch["_rowid"].to_numpy(), batch["chunk_id"].to_pylist(), matrix(batch, dim)))
            if not mean.any() and sum(len(h[0]) for h in held) < READ_BATCH:
                continue
        if held and not mean.any():
            mean = _mean(np.concatenate([h[2] for h in held]))
        parts += [segment(r, c, v, mean) for r, c, v in held]
        held = []
    return Snapshot(version, (concat(parts),) if parts else (), mean, snap_rows(parts))


def snap_rows(parts: list[Segment]) -> int:
    return int(sum(len(p.rowids) for p in parts))


def recentre(snap: Snapshot, dim: int) -> Snapshot:
    """New sign bits around the current mean, decoded from the int8 codes (no disk read of
    vectors): a mean chosen when the table was small centres a grown one badly."""
    mean = centroid(snap, dim)
    segs = []
    for s in snap.segments:
        bits = [_bits(np.asarray(s.q8[a:a + READ_BATCH], np.float32) * np.asarray(s.scale[a:a + READ_BATCH])[:, None]
                      - mean) for a in range(0, len(s.rowids), READ_BATCH)]
        segs.append(replace(s, bits=np.concatenate(bits, axis=1), name=""))
    return Snapshot(snap.version, tuple(segs), mean, snap.count)


def concat(parts: list[Segment]) -> Segment:
    if len(parts) == 1:
        return parts[0]
    return Segment(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("rowids", "alive", "keys", "scale", "q8")),
                   np.concatenate([p.bits for p in parts], axis=1))


def sync(snap: Snapshot | None, table: Any, dim: int) -> Snapshot:
    """The snapshot brought to the table's version. Appends (rows in fragments newer than any
    seen) are found by a row-id range query; only when the live count says rows also vanished
    is every live row id listed: vanished rows are marked dead, rows a compaction moved keep
    their codes (matched by chunk id), only rows never seen are read from disk."""
    version = table.version
    if snap is None or not snap.segments:
        return full_scan(table, dim, snap.mean if snap is not None else np.zeros(dim, np.float32))
    mark = int(max(int(s.rowids.max()) for s in snap.segments if len(s.rowids))) >> 32
    appended = live_rowids(table, f"_rowid >= {(mark + 1) << 32}")
    segs = list(snap.segments)
    if snap.count + len(appended) == table.count_rows():
        new = appended  # nothing vanished: the common case of an ingest of new documents
    else:
        live = live_rowids(table)
        dead_keys, dead_at = [], []
        for si, s in enumerate(segs):
            keep = s.alive & np.isin(s.rowids, live, assume_unique=True)
            gone = np.flatnonzero(s.alive & ~keep)
            if len(gone):
                dead_keys.append(s.keys[gone])
                dead_at += [(si, i) for i in gone.tolist()]
                segs[si] = replace(s, alive=keep)
        known = np.concatenate([s.rowids[s.alive] for s in segs])
        new = np.setdiff1d(live, known, assume_unique=True)
        if len(new) and dead_at:
            new, segs = _revive(table, new, segs, np.concatenate(dead_keys), dead_at)
    if len(new):
        data = read_rows(table, new, ["chunk_id", "vector"])
        segs.append(segment(data["_rowid"].to_numpy(), data["chunk_id"].to_pylist(), matrix(data, dim), snap.mean))
    segs = [s for s in segs if s.alive.any()]
    out = Snapshot(version, tuple(segs), snap.mean, snap.mean_rows)
    return recentre(out, dim) if out.count > max(4 * snap.mean_rows, CANDIDATES) else out


def _mean(vecs: np.ndarray) -> np.ndarray:
    v = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    return v.mean(axis=0).astype(np.float32)


def _revive(table: Any, new: np.ndarray, segs: list[Segment], dead_keys: np.ndarray,
            dead_at: list[tuple[int, int]]) -> tuple[np.ndarray, list[Segment]]:
    """Rows that only moved (same chunk id under a new row id) keep their codes."""
    data = read_rows(table, new, ["chunk_id"])
    got = data["_rowid"].to_numpy().astype(np.uint64)
    keys = key_of(data["chunk_id"].to_pylist())
    order = np.argsort(dead_keys, kind="stable")
    pos = np.minimum(np.searchsorted(dead_keys, keys, sorter=order), len(order) - 1)
    hit = dead_keys[order[pos]] == keys
    changed: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for j in np.flatnonzero(hit).tolist():
        si, i = dead_at[int(order[pos[j]])]
        if si not in changed:
            changed[si] = (segs[si].rowids.copy(), segs[si].alive.copy())
        changed[si][0][i] = got[j]
        changed[si][1][i] = True
    for si, (rowids, alive) in changed.items():
        segs[si] = replace(segs[si], rowids=rowids, alive=alive)
    return np.sort(got[~hit]), segs


class RamVectors:
    """The snapshot of one table, brought up to date (once, under a lock) per version."""

    def __init__(self, dim: int, cache: Any = None) -> None:
        self.dim = dim
        self.cache = cache  # vcache.VectorCache or None: start from / save to disk
        self._snap: Snapshot | None = None
        self._lock = threading.Lock()

    def snapshot(self, table: Any) -> Snapshot:
        snap = self._snap
        if snap is not None and snap.version == table.version:
            return snap
        with self._lock:
            if self._snap is None and self.cache is not None:
                self._snap = self.cache.load(self.dim)
            if self._snap is None or self._snap.version != table.version:
                self._snap = sync(self._snap, table, self.dim)
                if self.cache is not None:
                    self._snap = self.cache.maybe_save(self._snap)
            return self._snap

    @staticmethod
    def top(snap: Snapshot, vector: np.ndarray, n: int) -> list[tuple[int, float]]:
        return top(snap, vector, n)
