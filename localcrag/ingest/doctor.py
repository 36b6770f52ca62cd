"""``localcrag doctor``: verify the index and repair it.

The check reads every row of every column (so a missing or unreadable data file shows),
compares row counts, the vector dimension, the full-text index and the saved document
list, and counts duplicates. The repair goes back to the newest table version whose
files are all readable (LanceDB keeps versions for ``index_keep_minutes``), removes
duplicate rows, rebuilds the full-text index, and re-indexes from their files the
documents the index lost; documents whose files are gone too are named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from localcrag.ingest.maintain import dedupe, duplicates, load_documents


@dataclass
class Checkup:
    lines: list[tuple[bool, str]] = field(default_factory=list)  # (ok, what was found)
    damaged: bool = False  # some rows cannot be read
    duplicate_docs: list[str] = field(default_factory=list)
    fts_ok: bool = True
    lost: list[str] = field(default_factory=list)  # listed documents absent from the table

    @property
    def ok(self) -> bool:
        return all(ok for ok, _ in self.lines)

    def to_json(self) -> dict:
        return {"ok": self.ok, "checks": [{"ok": ok, "what": w} for ok, w in self.lines]}


@dataclass
class Repair:
    restored_version: int | None = None
    removed_duplicates: int = 0
    fts_rebuilt: bool = False
    reindexed: list[str] = field(default_factory=list)
    unrecoverable: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"restored_version": self.restored_version, "removed_duplicates": self.removed_duplicates,
                "fts_rebuilt": self.fts_rebuilt, "reindexed": self.reindexed,
                "unrecoverable": self.unrecoverable, "notes": self.notes}


def _missing_file(exc: BaseException) -> str:
    """The data file named in a LanceDB 'Not found' error, relative to the table folder."""
    m = re.search(r"Not found: (?:Wrapped error: Not found: )?([^\s,]+)", str(exc.__cause__ or exc))
    return m.group(1).split(".lance/", 1)[-1] if m else ""


def _scan(table: Any) -> Any:
    """Every row and column of the checked-out version (raises when a file is unreadable)."""
    return table.to_arrow()


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def check(store: Any) -> Checkup:
    """Verify the current table of ``store``: one line per check."""
    up = Checkup()
    add = up.lines.append
    listed = load_documents(store)
    if not store.exists():
        up.lost = sorted(listed)
        add((not listed, f"no index yet in {store.path}" + (f"; {len(listed)} listed documents missing"
                                                             if listed else "")))
        return up
    t = store.table
    versions = t.list_versions()
    folder = store.location.folder
    where = f"{_size(folder / f'{store.name}.lance') / 1e6:.1f} MB on disk" if folder else f"on {store.path}"
    add((True, f"table {store.name}: version {t.version}, {len(versions)} versions kept, {where}"))
    expected = t.count_rows()
    try:
        rows = _scan(t)
    except Exception as exc:  # noqa: BLE001 - any unreadable file: the index is damaged
        up.damaged = True
        name = _missing_file(exc)
        add((False, "data file missing: " + name if name else "rows cannot be read (a data file is damaged)"))
        return up
    add((rows.num_rows == expected, f"{rows.num_rows} rows read of {expected} counted"))
    dim = t.schema.field("vector").type.list_size
    vecs = np.asarray(rows["vector"].combine_chunks().flatten(), dtype=np.float32).reshape(-1, dim) \
        if rows.num_rows else np.zeros((0, dim), np.float32)
    bad = int((~np.isfinite(vecs).all(axis=1) | (np.abs(vecs).sum(axis=1) == 0)).sum())
    add((dim == store.dim and bad == 0, f"vectors: dimension {dim} (embedder: {store.dim}), {bad} empty or invalid"))
    n_extra, up.duplicate_docs = duplicates(store)
    add((not up.duplicate_docs, f"duplicates: {n_extra} repeated chunk ids, "
                                f"{len(up.duplicate_docs)} documents with more than one copy"))
    up.fts_ok = _fts_works(t) if rows.num_rows else True
    add((up.fts_ok, "full-text index present and searchable" if up.fts_ok else "full-text index missing or broken"))
    present = set(rows["source"].to_pylist())
    up.lost = sorted(set(listed) - present)
    add((not up.lost, f"{len(present)} documents; " + (f"{len(up.lost)} listed documents missing"
                                                       if up.lost else "all listed documents present")))
    return up


def _fts_works(table: Any) -> bool:
    try:
        if not any(i.index_type == "FTS" for i in table.list_indices()):
            return False
        table.search("index", query_type="fts").select(["chunk_id"]).limit(1).to_list()
        return True
    except Exception:  # noqa: BLE001 - any failure means the full-text half is not working
        return False


def _last_good_version(table: Any) -> int | None:
    """The newest version whose every file reads, or None."""
    for v in sorted((v["version"] for v in table.list_versions()), reverse=True)[1:]:
        try:
            table.checkout(v)
            _scan(table)
            return v
        except Exception:  # noqa: BLE001 - files of that version are gone too: try older
            continue
    return None


def repair(library: Any) -> Repair:
    """Bring the index back to a working state (under the writer lock); see the module doc."""
    store, out = library.store, Repair()
    with library.writing():
        listed = load_documents(store)
        up = check(store)
        if up.damaged:
            t = store.table
            good = _last_good_version(t)
            if good is not None:
                t.restore(good)
                out.restored_version = good
            else:
                t.checkout_latest()
                store._db.drop_table(store.name)
                out.notes.append("no readable version left: the table was dropped and is rebuilt from files")
            store._table = None
            up = check(store)
        if up.duplicate_docs:
            out.removed_duplicates = dedupe(store, up.duplicate_docs)
        if not up.fts_ok and store.count():
            out.fts_rebuilt = True
        present = set(store.file_hashes())
        wanted = sorted(set(listed) | present)
        out.unrecoverable = [s for s in sorted(set(listed) - present) if not Path(s).is_file()]
        report = library.ingest([s for s in wanted if Path(s).is_file()])  # lost or changed only
        out.reindexed = report.indexed
        out.unrecoverable += [p for p, _ in report.failed]
        if out.fts_rebuilt and store.count():
            _rebuild_fts(store)
        library._changed = True  # compacted, document list saved, as the lock is let go
    return out


def _rebuild_fts(store: Any) -> None:
    from lancedb.index import FTS

    store.table.create_index("text", config=FTS(with_position=False), replace=True)
