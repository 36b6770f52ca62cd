"""Quantised vector search kept up to date incrementally: compared with exact float32 search
after appends, deletions, re-ingests and compaction, and with the on-disk cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from localcrag.ingest import vectors, vsync
from localcrag.ingest.store import LanceStore
from localcrag.types import Chunk

DIM = 64


def _doc(
    store: LanceStore,
    source: str,
    tag: str,
    n: int,
    rng: np.random.Generator,
    centre: np.ndarray | None = None,
) -> None:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    if centre is not None:
        v += 3 * centre
    chunks = [Chunk(f"{tag}-{i}", source, f"{tag} text {i}", 1, 1, 0, 5, None, 3) for i in range(n)]
    store.replace_file(source, tag, 1, chunks, v)


def _exact(store: LanceStore, q: np.ndarray, n: int) -> list[str]:
    data = store.table.to_arrow()
    m = vsync.matrix(data, DIM)
    m = m / np.linalg.norm(m, axis=1, keepdims=True)
    sims = m @ (q / np.linalg.norm(q))
    ids = data["chunk_id"].to_pylist()
    return [ids[i] for i in np.argsort(-sims)[:n]]


def _ours(store: LanceStore, q: np.ndarray, n: int) -> list[str]:
    return [h.chunk.chunk_id for h in store.search("", q, n, "vector")]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Rows whose vectors were read from Lance by each sync."""
    seen: list[int] = []
    real = vsync.read_rows

    def spy(table, rowids, columns):  # noqa: ANN001, ANN202
        if "vector" in columns:
            seen.append(len(rowids))
        return real(table, rowids, columns)

    real_scan = vsync.full_scan

    def scan_spy(table, dim, mean):  # noqa: ANN001, ANN202
        seen.append(table.count_rows())
        return real_scan(table, dim, mean)

    monkeypatch.setattr(vsync, "read_rows", spy)
    monkeypatch.setattr(vsync, "full_scan", scan_spy)
    return seen


def test_incremental_updates_match_exact_search(tmp_path: Path, reads: list[int]) -> None:
    rng = np.random.default_rng(1)
    store = LanceStore(tmp_path / "idx", "t", DIM)
    for d in range(8):
        _doc(store, f"/{d}.txt", f"d{d}", 40, rng, rng.standard_normal(DIM).astype(np.float32))
    queries = [rng.standard_normal(DIM).astype(np.float32) for _ in range(6)]

    def check() -> None:
        snap = store._ram.snapshot(store.table)
        n_reads = len(reads)
        fresh = vsync.sync(vectors.Snapshot(0, (), snap.mean), store.table, DIM)  # a full rebuild
        del reads[n_reads:]
        for q in queries:
            assert _ours(store, q, 5) == _exact(store, q, 5)
            for cands in (40, 100):  # with the Hamming pre-selection: the same as the rebuild
                a, b = vectors.top(snap, q, 10, cands), vectors.top(fresh, q, 10, cands)
                assert np.allclose([s for _, s in a], [s for _, s in b], atol=1e-5)
                cut = a[-1][1] + 1e-5  # above the last score: no ties at the boundary
                assert {r for r, s in a if s > cut} == {r for r, s in b if s > cut}

    check()
    assert reads == [320]  # the first search reads every vector once
    _doc(store, "/new.txt", "dn", 7, rng)  # an append: only its rows are read
    check()
    assert reads[-1] == 7
    store.remove("/3.txt")  # a deletion reads nothing
    n_reads = len(reads)
    check()
    assert len(reads) == n_reads
    assert all(not c.startswith("d3-") for q in queries for c in _ours(store, q, 40))
    _doc(store, "/5.txt", "d5b", 12, rng)  # a re-ingested (changed) file: only its new rows
    check()
    assert reads[-1] == 12
    assert all(not c.startswith("d5-") for q in queries for c in _ours(store, q, 60))
    store.table.optimize()  # compaction moves rows to new row ids: recognised, not re-read
    n_reads = len(reads)
    check()
    assert len(reads) == n_reads


def test_start_up_maps_the_cache_and_reads_only_rows_added_since(
    tmp_path: Path, reads: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from localcrag.ingest import vcache

    monkeypatch.setattr(vcache, "SAVE_MIN_ROWS", 10)
    rng = np.random.default_rng(2)
    store = LanceStore(tmp_path / "idx", "t", DIM)
    for d in range(5):
        _doc(store, f"/{d}.txt", f"d{d}", 30, rng)
    q = rng.standard_normal(DIM).astype(np.float32)
    first = _ours(store, q, 8)
    assert reads == [150] and (tmp_path / "idx" / "t.vcache" / "manifest.json").exists()
    again = LanceStore(tmp_path / "idx", "t", DIM)  # a new process: loads the saved codes
    assert _ours(again, q, 8) == first and reads == [150]
    _doc(store, "/late.txt", "dl", 4, rng)
    store.remove("/0.txt")
    later = LanceStore(tmp_path / "idx", "t", DIM)
    assert _ours(later, q, 8) == _exact(later, q, 8)
    assert reads[-1] == 4  # only the appended rows


def _saved_store(tmp_path: Path, seed: int) -> tuple[LanceStore, np.ndarray, np.random.Generator]:
    """Three documents of 20 rows, their codes saved beside the table; and a query."""
    rng = np.random.default_rng(seed)
    store = LanceStore(tmp_path / "idx", "t", DIM)
    for d in range(3):
        _doc(store, f"/{d}.txt", f"d{d}", 20, rng)
    store._ram.cache.save(store._ram.snapshot(store.table))
    return store, rng.standard_normal(DIM).astype(np.float32), rng


def test_a_broken_cache_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    store, q, _ = _saved_store(tmp_path, 3)
    folder = tmp_path / "idx" / "t.vcache"
    for seg in folder.glob("seg-*"):
        (seg / "q8.npy").write_bytes(b"garbage")
    assert _ours(LanceStore(tmp_path / "idx", "t", DIM), q, 5) == _exact(store, q, 5)


def test_hamming_candidates_keep_recall_on_clustered_vectors() -> None:
    """The pre-selection with a few hundred candidates of 20,000 rows finds the exact top 10."""
    rng = np.random.default_rng(4)
    centres = rng.standard_normal((50, DIM)).astype(np.float32)
    m = centres[rng.integers(0, 50, 20_000)] + 0.5 * rng.standard_normal((20_000, DIM)).astype(
        np.float32
    )
    mean = vectors._mean(m)
    seg = vectors.segment(
        np.arange(len(m), dtype=np.uint64), [str(i) for i in range(len(m))], m, mean
    )
    snap = vectors.Snapshot(1, (seg,), mean)
    unit = m / np.linalg.norm(m, axis=1, keepdims=True)
    hits = 0
    for _ in range(20):
        q = centres[rng.integers(0, 50)] + 0.5 * rng.standard_normal(DIM).astype(np.float32)
        exact = set(np.argsort(-(unit @ q))[:10].tolist())
        hits += len(exact & {r for r, _ in vectors.top(snap, q, 10, candidates=800)})
    assert hits / 200 >= 0.95


def test_a_table_built_again_under_the_same_name_is_not_mixed_up(tmp_path: Path) -> None:
    store, q, rng = _saved_store(tmp_path, 5)
    store._db.drop_table("t")  # what a rebuild does; row ids start again from 0
    store.reopen()
    for d in range(4):
        _doc(store, f"/{d}.txt", f"e{d}", 20, rng)
    for s in (store, LanceStore(tmp_path / "idx", "t", DIM)):  # in memory, and from the cache
        assert _ours(s, q, 5) == _exact(s, q, 5)
        assert all(c.startswith("e") for c in _ours(s, q, 60))


def test_an_ingest_leaves_the_codes_saved_for_the_next_process(
    tmp_path: Path, reads: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from localcrag.ingest import vcache
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings
    from tests.support.fakes import FakeEmbedder

    monkeypatch.setattr(vcache, "SAVE_MIN_ROWS", 1)
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(6):
        (folder / f"n{i}.txt").write_text(f"Note {i} about pumps and valves number {i}.\n")
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([folder])
    assert reads == [6]  # the writer read the codes once, after its commit
    fresh = LanceStore(lib.store.path, lib.store.name, lib.store.dim)
    q = FakeEmbedder().embed(["pumps and valves"])[0]
    assert fresh.search("pumps", q, 3, "hybrid") and reads == [6]  # mapped, nothing re-read


def test_disk_rows_are_read_in_the_order_asked_one_read_per_run(tmp_path, monkeypatch) -> None:
    """Codes left on disk (vcache.DiskRows) come back as asked, in any order, with one read
    per run of consecutive rows (a scope's document is a run of hundreds)."""
    import os

    from localcrag.ingest import vcache

    codes = (np.arange(60 * 8) % 127).astype(np.int8).reshape(60, 8)
    np.save(tmp_path / "q8.npy", codes)
    rows = vcache.DiskRows(np.load(tmp_path / "q8.npy", mmap_mode="r"))
    reads: list[int] = []
    real = os.pread
    monkeypatch.setattr(vcache.os, "pread", lambda fd, n, at: reads.append(n) or real(fd, n, at))
    for idx in ([], [3], [10, 11, 12, 13, 40, 41], [5, 4, 3], [59, 0, 1, 2, 7]):
        reads.clear()
        got = rows.take(np.array(idx, dtype=np.int64))
        assert got.shape == (len(idx), 8) and (got == codes[idx]).all(), idx
    assert len(reads) == 3  # [59], [0, 1, 2], [7]
    reads.clear()
    rows.take(np.arange(20, 50))
    assert reads == [30 * 8]
    # the search reads candidates alike from codes in RAM and codes on disk (read, not sliced)
    from localcrag.ingest.vectors import rows_of

    reads.clear()
    idx = np.array([7, 2, 3, 59])
    assert (rows_of(rows, idx) == rows_of(codes, idx)).all() and reads
    assert (rows[2:5] == codes[2:5]).all()
