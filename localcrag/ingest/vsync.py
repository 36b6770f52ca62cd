"""Keeping the vector codes of a table current: the first full read, then per table
version only what changed (see vectors.py for the codes and the search).

Appends are rows in fragments newer than any seen: one row-id range query finds them.
Only when the live row count says rows also vanished are all live row ids listed (no
column read): vanished rows are marked dead, rows a compaction moved (same chunk id, new
row id) keep their codes, and only rows never seen are read from Lance.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from localcrag.ingest.faults import BadRows
from localcrag.ingest.vectors import (
    CANDIDATES,
    READ_BATCH,
    Segment,
    Snapshot,
    _bits,
    _mean,
    centroid,
    in_rows,
    key_of,
    segment,
    top,
)


def live_rowids(table: Any, where: str | None = None) -> np.ndarray:
    """Row ids of the live rows of the table's checked-out version (no column read)."""
    q = table.search().select(["_rowid"])
    q = q.where(where) if where else q
    data = q.limit(max(table.count_rows(), 1)).to_arrow()
    return np.sort(data["_rowid"].to_numpy().astype(np.uint64))


def read_rows(table: Any, rowids: np.ndarray, columns: list[str]) -> Any:
    """Columns (+ _rowid) of the given rows, in batches; an Arrow table."""
    import pyarrow as pa

    parts = [
        table.take_row_ids([int(r) for r in rowids[i : i + READ_BATCH]])
        .select(columns)
        .with_row_id()
        .to_arrow()
        for i in range(0, len(rowids), READ_BATCH)
    ]
    return pa.concat_tables(parts) if parts else None


def matrix(data: Any, dim: int) -> np.ndarray:
    """The rows' vectors, validated: each of the table's dimension, finite and of unit length
    (they are stored normalised), else ``BadRows``: damaged rows never rank as sound ones."""
    col = data["vector"]
    col = col.combine_chunks() if hasattr(col, "combine_chunks") else col  # table or batch
    flat = col.flatten().to_numpy(zero_copy_only=False)
    if len(flat) != len(data) * dim:
        raise BadRows(f"{len(data)} vectors hold {len(flat)} values, not {dim} each")
    m = flat.reshape(len(data), dim).astype(np.float32, copy=False)
    if n := len(invalid_rows(m)):
        raise BadRows(f"{n} chunk vector(s) read back invalid (not finite or not unit length)")
    return m


def invalid_rows(m: np.ndarray) -> np.ndarray:
    """Indices of rows that are not finite unit vectors."""
    with np.errstate(all="ignore"):
        norm = np.linalg.norm(m.astype(np.float64), axis=1)
    return np.flatnonzero(~np.isfinite(norm) | (np.abs(norm - 1.0) > 1e-3))


class Moved(Exception):
    """Row ids named nothing any more: a write compacted the table since the snapshot."""


def rows_by_id(table: Any, rowids: Sequence[int], columns: list[str], dim: int) -> dict[int, dict]:
    """Rows by LanceDB row id (one `take`; "vector" as a float32 array); raises ``Moved`` when
    a write compacted the table since the snapshot was taken (the ids then name nothing)."""
    wanted = sorted(set(int(r) for r in rowids))
    if not wanted:
        return {}
    got = table.take_row_ids(wanted).select(columns).with_row_id().to_arrow()
    if got.num_rows != len(wanted):
        raise Moved
    vecs = matrix(got, dim) if "vector" in columns else None
    rows = got.drop_columns(["vector"]).to_pylist() if vecs is not None else got.to_pylist()
    for r, v in zip(rows, vecs if vecs is not None else []):
        r["vector"] = v
    return {r["_rowid"]: r for r in rows}


def exact_rerank(
    table: Any,
    approx: list[tuple[int, float]],
    vector: np.ndarray,
    n: int,
    columns: list[str],
    dim: int,
) -> list[tuple[dict, float]]:
    """Approximate candidates re-ranked by their float32 vectors (read back by row id): the
    top n by exact cosine, with their rows."""
    rows = rows_by_id(table, [r for r, _ in approx], columns + ["vector"], dim)
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    q = q / (np.linalg.norm(q) or 1.0)
    scored = [
        (
            rows[rid],
            float(rows[rid]["vector"] @ q) / (float(np.linalg.norm(rows[rid]["vector"])) or 1.0),
        )
        for rid, _ in approx
    ]
    return sorted(scored, key=lambda t: -t[1])[:n]


def full_scan(table: Any, dim: int, mean: np.ndarray) -> Snapshot:
    """Every row's codes, streamed a batch at a time (bounded memory at 1M rows); the mean
    that centres the sign bits is chosen from the first READ_BATCH rows when not given."""
    n = table.count_rows()
    parts, held, version = [], [], table.version
    reader = (
        table.search()
        .select(["chunk_id", "vector", "_rowid"])
        .limit(max(n, 1))
        .to_batches(READ_BATCH)
    )
    for batch in itertools.chain(reader, [None]):  # None: flush what is held
        if batch is not None:
            held.append(
                (batch["_rowid"].to_numpy(), batch["chunk_id"].to_pylist(), matrix(batch, dim))
            )
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
        bits = [
            _bits(
                np.asarray(s.q8[a : a + READ_BATCH], np.float32)
                * np.asarray(s.scale[a : a + READ_BATCH])[:, None]
                - mean
            )
            for a in range(0, len(s.rowids), READ_BATCH)
        ]
        segs.append(replace(s, bits=np.concatenate(bits, axis=1), name=""))
    return Snapshot(snap.version, tuple(segs), mean, snap.count)


def concat(parts: list[Segment]) -> Segment:
    if len(parts) == 1:
        return parts[0]
    return Segment(
        np.concatenate([p.rowids for p in parts]),
        np.concatenate([p.alive for p in parts]),
        np.concatenate([p.keys for p in parts]),
        np.concatenate([p.scale for p in parts]),
        np.concatenate([p.q8 for p in parts]),
        np.concatenate([p.bits for p in parts], axis=1),
    )


def same_table(snap: Snapshot, table: Any, probes: int = 8) -> bool:
    """Whether a few of the snapshot's rows still hold the same chunk ids at the same row ids
    (or were deleted): a table built again under the same name reuses row ids for other rows."""
    if snap.version > table.version:
        return False
    s = max(snap.segments, key=lambda seg: len(seg.rowids))
    live = np.flatnonzero(s.alive)
    pick = (
        live[np.linspace(0, len(live) - 1, min(probes, len(live))).round().astype(int)]
        if len(live)
        else live
    )
    if not len(pick):
        return True
    got = read_rows(table, s.rowids[pick], ["chunk_id"])
    have = dict(zip(got["_rowid"].to_pylist(), key_of(got["chunk_id"].to_pylist()).tolist()))
    return all(have.get(int(s.rowids[i]), int(s.keys[i])) == int(s.keys[i]) for i in pick)


def sync(snap: Snapshot | None, table: Any, dim: int) -> Snapshot:
    """The snapshot brought to the table's version. Appends (rows in fragments newer than any
    seen) are found by a row-id range query; only when the live count says rows also vanished
    is every live row id listed: vanished rows are marked dead, rows a compaction moved keep
    their codes (matched by chunk id), only rows never seen are read from disk."""
    version = table.version
    if snap is not None and snap.segments and not same_table(snap, table):
        snap = None  # the table was dropped and built again (same name): nothing carries over
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
        segs.append(
            segment(
                data["_rowid"].to_numpy(),
                data["chunk_id"].to_pylist(),
                matrix(data, dim),
                snap.mean,
            )
        )
    segs = [s for s in segs if s.alive.any()]
    out = Snapshot(version, tuple(segs), snap.mean, snap.mean_rows)
    return recentre(out, dim) if out.count > max(4 * snap.mean_rows, CANDIDATES) else out


def _revive(
    table: Any,
    new: np.ndarray,
    segs: list[Segment],
    dead_keys: np.ndarray,
    dead_at: list[tuple[int, int]],
) -> tuple[np.ndarray, list[Segment]]:
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
        self._masks: tuple[Snapshot, tuple[str, ...], tuple[np.ndarray, ...], np.ndarray] | None = (
            None
        )

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
    def top(
        snap: Snapshot, vector: np.ndarray, n: int, within: Sequence[np.ndarray] | None = None
    ) -> list[tuple[int, float]]:
        return top(snap, vector, n, within=within)

    def masks(
        self, snap: Snapshot, key: tuple[str, ...], rowids: Callable[[], np.ndarray]
    ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """``top``'s masks for a scope (``key``: its sources) and the scope's row ids, made
        once a snapshot: a scoped conversation asks many questions of one version."""
        got = self._masks
        if got is not None and got[0] is snap and got[1] == key:
            return got[2], got[3]
        rows = rowids()
        masks = in_rows(snap, rows)
        self._masks = (snap, key, masks, rows)
        return masks, rows
