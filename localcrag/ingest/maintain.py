"""Keeping the index small and recoverable: compaction, version clean-up, the document list,
and removing duplicate rows.

Every commit leaves a table version behind, and old versions keep their data files alive,
so after each ingest the store is compacted (small fragments merged, the full-text index
and the source index brought up to date) and versions older than ``index_keep_minutes``
are dropped: the retention window is what ``doctor --repair`` can go back to. Beside each table a small
JSON list of its documents (source -> content hash) survives the loss of any data file,
so a repair knows which documents to rebuild from their files.
"""

from __future__ import annotations

import warnings
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from localcrag.ingest import rowsums, seal, sidecar
from localcrag.ingest.filestat import FileStats
from localcrag.ingest.location import REMOTE_MIN_KEEP_MINUTES, retry_conflicts
from localcrag.ingest.rows import quote


def compact(store: Any, keep_minutes: float) -> None:
    """Merge small fragments, update (or build) the full-text index, drop old versions."""
    from lancedb.index import FTS

    remote = store.location.remote
    if remote:  # writers on other machines may still build on a recent version (see location.py)
        keep_minutes = max(keep_minutes, REMOTE_MIN_KEEP_MINUTES)

    def run() -> None:
        t = store.table
        if t.count_rows() and not any(i.index_type == "FTS" for i in t.list_indices()):
            t.create_index("text", config=FTS(with_position=False), replace=True)
        ensure_source_index(store)
        with warnings.catch_warnings():  # keep=0 warns about other readers: the writer lock is ours
            warnings.simplefilter("ignore", UserWarning)
            t.optimize(cleanup_older_than=timedelta(minutes=keep_minutes))

    retry_conflicts(
        run, store.reopen
    ) if remote else run()  # a concurrent commit: redo on the new version
    store._fts_dirty = False
    ram = store._ram
    if store.table.count_rows():
        try:  # the vector codes brought up to date (and saved) by the writer, so a process
            ram.snapshot(store.table)  # starting next maps them instead of reading every vector
        except Exception:  # noqa: BLE001 - only a speed-up: a reader rebuilds what it lacks
            pass


def documents_path(store: Any) -> Path | None:
    """The document list beside a local table; None on object storage, where the list is not
    kept (doctor's "lost documents" check is local-only; docs/shared-index.md)."""
    folder = store.location.folder
    return folder / f"{store.name}.documents.json" if folder is not None else None


def save_documents(store: Any) -> None:
    """Write the digests of the documents' rows (ingest/rowsums.py, also a second copy of the
    list), then the table's document list (checksummed, atomically: a crash leaves the previous
    list), then seal the table's files as they now are (ingest/seal.py)."""
    path = documents_path(store)
    if path is None:
        return
    documents = store.file_hashes()
    rowsums.save(store, documents, store.written)
    store.written = {}
    sidecar.write(path, documents)
    seal.write(store, store.table.version)


def known_documents(store: Any) -> dict[str, str]:
    """The library's documents as last recorded (source -> content hash): the document
    list, else the copy beside the row digests, else the file-stat cache ({} when all three
    are lost: then only the table's rows tell)."""
    listed = load_documents(store) if not documents_state(store) else None
    if listed is not None:
        return listed
    kept = rowsums.read(store)
    if kept is not None:
        return rowsums.sources(kept)
    folder = store.location.folder
    if folder is not None:
        stats = FileStats(Path(folder) / f"{store.name}.filestat.json")
        if stats.state is None:
            return {s: str(e[2]) for s, e in stats.entries.items()}
    return {}


def load_documents(store: Any) -> dict[str, str]:
    """The last saved document list ({} when there is none or it is unreadable)."""
    data, _ = sidecar.read(documents_path(store))
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def documents_state(store: Any) -> str | None:
    """None when the document list reads back whole; else "missing" or "damaged"."""
    data, state = sidecar.read(documents_path(store))
    return state or (None if isinstance(data, dict) else sidecar.DAMAGED)


def ensure_fts(store: Any, force: bool = False) -> None:
    """Build the full-text index once (LanceStore.ensure_fts); later rows are searched
    unindexed, then merged by ``optimize``."""
    from lancedb.index import FTS

    t = store.table
    has = any(i.index_type == "FTS" for i in t.list_indices())
    if not has and t.count_rows() > 0:
        t.create_index("text", config=FTS(with_position=False), replace=True)
    elif has and (force or store._fts_dirty):
        t.optimize()
    store._fts_dirty = False


def source_index(table: Any) -> Any | None:
    """The table's index on ``source`` (its config: name, uuid), or None."""
    return next((i for i in table.list_indices() if list(i.columns) == ["source"]), None)


def has_source_index(table: Any) -> bool:
    return source_index(table) is not None


def ensure_source_index(store: Any, force: bool = False) -> None:
    """A bitmap index on ``source``, so a scope's ``source IN (...)`` prefilter reads the
    index instead of every row's source (at 1M passages, a scope of 100 documents: 32-38 ms
    p50 instead of 65-74, bench/scope_probe.py). Only writers build it (compaction, repair), before
    the seal is written, so the seal covers its files; ``optimize`` keeps it up to date."""
    from lancedb.index import Bitmap

    t = store.table
    if t.count_rows() and (force or not has_source_index(t)):
        t.create_index("source", config=Bitmap(), replace=True)


def heal_source_index(store: Any) -> None:
    """As a local table opens: a source index whose files changed since the seal, or no
    longer read (deleted), would make every scoped or per-document read fail or filter
    wrongly, so it is rebuilt now (seconds even at 1M passages); when it cannot be (another
    process holds the writer lock, a read-only folder) the command stops with one line."""
    from localcrag.ingest.faults import damaged

    t = store.table
    own = source_index(t)
    if own is None:
        return  # an index written before the source index existed: scans instead
    folder = f"_indices/{own.index_uuid}/"
    changed = [c for c in store.derived_changed if c.startswith(folder)]
    if not changed:
        try:
            t.count_rows("source = ''")  # reads the index's lookup file
            return
        except Exception as exc:  # noqa: BLE001 - only the index's own files are judged here
            if own.index_uuid not in str(exc):
                return  # other damage (a data or deletion file): the read that meets it says so
            changed = [f"{folder} does not read"]
    if not rebuild_indexes(store):
        raise damaged(store.path, f"its source index is damaged ({changed[0]})")


def rebuild_indexes(store: Any, locked: bool = False) -> bool:
    """Build the derived indexes again (full-text and source; a missing or broken one: a
    full disk, a damaged or deleted file) under the writer lock (``locked``: the caller
    holds it), unless another process holds it; True when rebuilt. Local only."""
    from lancedb.index import FTS

    from localcrag.ingest.lock import WriterLock

    folder = store.location.folder
    if folder is None or not store.exists() or not store.count():
        return False
    lock = WriterLock(Path(folder))
    try:
        if not locked:
            lock.acquire(wait=False)
    except Exception:  # noqa: BLE001 - busy, read-only or full: the caller falls back, visibly
        return False
    try:
        store.table.create_index("text", config=FTS(with_position=False), replace=True)
        ensure_source_index(store, force=True)
        store._fts_dirty = store.fts_damaged = False
        store.derived_changed = []
        seal.write(store, store.table.version)
        return True
    except Exception:  # noqa: BLE001 - e.g. the disk is still full
        return False
    finally:
        if not locked:
            lock.release()


def duplicates(store: Any) -> tuple[int, list[str]]:
    """(chunk rows beyond the first copy of their id, documents whose rows disagree: a
    duplicated chunk id or two content hashes for one document)."""
    d = store.columns(["chunk_id", "source", "doc_hash"])
    extra = Counter(d["chunk_id"])
    n_extra = sum(c - 1 for c in extra.values())
    hashes: dict[str, set[str]] = {}
    bad: set[str] = set()
    for cid, src, h in zip(d["chunk_id"], d["source"], d["doc_hash"]):
        hashes.setdefault(src, set()).add(h)
        if extra[cid] > 1:
            bad.add(src)
    bad.update(s for s, hs in hashes.items() if len(hs) > 1)
    return n_extra, sorted(bad)


def dedupe(store: Any, sources: list[str]) -> int:
    """Keep one copy of each document (its newest content hash, each chunk id once);
    returns the rows removed. Run under the writer lock."""
    if not sources:
        return 0
    import pyarrow as pa

    where = f"source IN ({', '.join(quote(s) for s in sources)})"
    t = store.table
    rows = t.search().where(where).limit(t.count_rows(where)).to_arrow()
    newest: dict[str, tuple[float, str]] = {}
    for src, h, at in zip(*(rows[c].to_pylist() for c in ("source", "doc_hash", "indexed_at"))):
        if src not in newest or at > newest[src][0]:
            newest[src] = (at, h)
    keep, seen = [], set()
    for i, (cid, src, h) in enumerate(
        zip(*(rows[c].to_pylist() for c in ("chunk_id", "source", "doc_hash")))
    ):
        if h == newest[src][1] and cid not in seen:
            seen.add(cid)
            keep.append(i)
    kept = rows.take(pa.array(keep, type=pa.int64())).select(t.schema.names)
    t.delete(where)
    t.add(kept)
    store._fts_dirty = True
    return rows.num_rows - kept.num_rows
