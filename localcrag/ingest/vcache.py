"""The quantised vectors of a table on disk, beside it, so start-up reads no vectors.

Layout (``<index>/<table>.vcache/``): one folder per segment holding its immutable codes
(``keys``, ``scale``, ``q8``, ``bits`` as .npy, memory-mapped on load: the int8 rows of a
1M-row table are 384 MB of page cache, touched only where candidates fall), and per save a
``state-<version>.npz`` with every segment's row ids and live flags (9 bytes a row), named
by ``manifest.json`` (replaced atomically). A process starting against a newer table
version loads this and diffs forward (vsync.sync), reading only rows it has not seen.
Any unreadable or mismatched cache is ignored, never trusted: the snapshot is rebuilt.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from dataclasses import replace
from pathlib import Path

import numpy as np

from localcrag.ingest import sidecar
from localcrag.ingest.vectors import Segment, Snapshot

FORMAT = 2  # 2: a checksummed manifest naming each file's size and mtime
SAVE_AFTER_ROWS = 0.02  # re-save once this share of rows is not in the saved files ...
SAVE_MIN_ROWS = 2_000  # ... and at least this many (small appends: the diff is cheap)
MAX_SEGMENTS = 8  # more than this: merged into one on the next save
_CODES = ("keys", "scale", "q8", "bits")


class VectorCache:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.saved_rows = 0  # rows in segments already on disk

    def load(self, dim: int) -> Snapshot | None:
        """The saved snapshot, or None when there is none or any of its files is damaged (a
        checksummed manifest; each code file's size and mtime as saved): never trusted."""
        try:
            meta, _ = sidecar.read(self.folder / "manifest.json")
            if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("dim") != dim:
                return None
            if any(_stat(self.folder / rel) != rec for rel, rec in meta["files"].items()):
                return None
            state = np.load(self.folder / meta["state"])
            segs = []
            for i, name in enumerate(meta["segments"]):
                codes = {c: np.load(self.folder / name / f"{c}.npy", mmap_mode="r") for c in _CODES}
                codes["bits"] = np.array(codes["bits"])  # scanned whole on every query: in RAM
                codes["q8"] = DiskRows(codes["q8"])
                segs.append(Segment(state[f"rowids{i}"], state[f"alive{i}"], name=name, **codes))
            snap = Snapshot(
                int(meta["version"]),
                tuple(segs),
                np.asarray(meta["mean"], np.float32),
                int(meta.get("mean_rows", 0)),
            )
        except Exception:  # noqa: BLE001 - any unreadable cache (zipfile errors too): rebuilt
            return None
        self.saved_rows = sum(len(s.rowids) for s in snap.segments)
        return snap

    def status(self, dim: int) -> str | None:
        """None: no cache, or one that loads; "stale": written by another format (rebuilt on
        use); "damaged": a manifest or code file that fails its check (not used; rebuilt)."""
        if not self.folder.is_dir():
            return None
        meta, state = sidecar.read(self.folder / "manifest.json")
        if state == sidecar.MISSING and not any(self.folder.glob("seg-*")):
            return None
        if isinstance(meta, dict) and meta.get("format") != FORMAT:
            return "stale"
        return None if self.load(dim) is not None else "damaged"

    def maybe_save(self, snap: Snapshot) -> Snapshot:
        """Save when enough rows are only in RAM (or segments pile up); best effort."""
        total = sum(len(s.rowids) for s in snap.segments)
        unsaved = sum(len(s.rowids) for s in snap.segments if not s.name)
        if not snap.segments or (
            unsaved < max(SAVE_MIN_ROWS, SAVE_AFTER_ROWS * total)
            and len(snap.segments) <= MAX_SEGMENTS
        ):
            return snap
        try:
            return self.save(snap)
        except OSError:  # a read-only or full disk: the cache is only a speed-up
            return snap

    def save(self, snap: Snapshot) -> Snapshot:
        self.folder.mkdir(parents=True, exist_ok=True)
        segs = list(snap.segments)
        if len(segs) > MAX_SEGMENTS:
            segs = [_merge(segs)]
        out = []
        for s in segs:
            if not s.name:
                name = f"seg-{uuid.uuid4().hex[:12]}"
                tmp = self.folder / (name + ".tmp")
                tmp.mkdir()
                for c, array in s.codes().items():
                    np.save(tmp / f"{c}.npy", np.asarray(array))
                os.replace(tmp, self.folder / name)
                s = replace(s, name=name)
            out.append(s)
        state = f"state-{snap.version}-{uuid.uuid4().hex[:6]}.npz"
        arrays = {f"rowids{i}": s.rowids for i, s in enumerate(out)}
        arrays.update({f"alive{i}": s.alive for i, s in enumerate(out)})
        np.savez(self.folder / state, allow_pickle=True, **arrays)  # named: no array fills it
        files = [state] + [f"{s.name}/{c}.npy" for s in out for c in _CODES]
        meta = {
            "format": FORMAT,
            "dim": int(snap.mean.shape[0]),
            "version": snap.version,
            "mean": snap.mean.tolist(),
            "mean_rows": snap.mean_rows,
            "segments": [s.name for s in out],
            "state": state,
            "files": {f: _stat(self.folder / f) for f in files},
        }
        sidecar.write(self.folder / "manifest.json", meta)
        self._clean({s.name for s in out} | {state})
        self.saved_rows = sum(len(s.rowids) for s in out)
        return Snapshot(snap.version, tuple(out), snap.mean, snap.mean_rows)

    def _clean(self, keep: set[str], grace: float = 300.0) -> None:
        """Drop files no manifest names (after a grace period: another process may be
        loading the previous manifest's files right now)."""
        now = time.time()
        for p in self.folder.iterdir():
            if p.name in keep or p.name.startswith("manifest"):
                continue
            try:
                if now - p.stat().st_mtime > grace:
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
            except OSError:
                pass


def _stat(p: Path) -> list[int]:
    try:
        st = p.stat()
    except OSError:
        return []
    return [st.st_size, st.st_mtime_ns]


class DiskRows:
    """An int8 code matrix left on disk: candidates are read with pread, not memory-mapped.
    Mapping it let the kernel's fault-around map ~64 KB per candidate: 4,096 candidates
    brought all 384 MB of a 1M-row table into the process's RSS after one query; read, the
    codes stay in the OS page cache and the process holds 65 B per row."""

    def __init__(self, mapped: np.memmap) -> None:
        self.mapped = mapped  # for whole-file reads (merge, centroid), rare
        self.shape = mapped.shape
        self.row = int(mapped.shape[1]) * mapped.dtype.itemsize
        if mapped.filename is None:  # np.load(..., mmap_mode="r") always names its file
            raise ValueError("DiskRows reads a memory-mapped file")
        self.fd = os.open(mapped.filename, os.O_RDONLY)

    def __len__(self) -> int:
        return int(self.shape[0])

    def __getitem__(self, key: slice | np.ndarray) -> np.ndarray:
        """A slice, copied out of the mapping; or rows by index, read (:meth:`take`), as an
        in-RAM code matrix gives them."""
        if isinstance(key, slice):
            return np.array(self.mapped[key])
        return self.take(key)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:  # noqa: ANN001
        return np.asarray(self.mapped, dtype=dtype)

    def take(self, idx: np.ndarray) -> np.ndarray:
        """The rows ``idx``, in that order: one read per run of consecutive rows (a scope's
        document is a run of hundreds; Hamming candidates are mostly runs of one)."""
        base, row, fd = self.mapped.offset, self.row, self.fd
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        cuts = (np.flatnonzero(np.diff(idx) != 1) + 1).tolist()
        starts, ends = [0, *cuts], [*cuts, len(idx)]
        buf = b"".join(
            os.pread(fd, row * (e - s), base + int(idx[s]) * row)
            for s, e in zip(starts, ends)
            if e > s
        )
        return np.frombuffer(buf, np.int8).reshape(len(idx), self.shape[1])

    def __del__(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


def _merge(segs: list[Segment]) -> Segment:
    """One segment of the live rows of several (dead rows dropped)."""
    live = [np.flatnonzero(s.alive) for s in segs]

    def cat(arrays: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([np.asarray(a)[i] for a, i in zip(arrays, live)])

    bits = np.concatenate([np.asarray(s.bits)[:, i] for s, i in zip(segs, live)], axis=1)
    rowids = cat([s.rowids for s in segs])
    return Segment(
        rowids,
        np.ones(len(rowids), bool),
        cat([s.keys for s in segs]),
        cat([s.scale for s in segs]),
        cat([s.q8 for s in segs]),
        np.ascontiguousarray(bits),
    )
