"""``localcrag doctor``: verify the index and repair it.

The check reads every row of every column (so a missing or unreadable data file shows),
hashes every file against the seal (ingest/seal.py: any byte changed since it was written),
recomputes each document's row digest against the one recorded when it was written
(ingest/rowsums.py: rot the seal would have shown, when the seal is lost too), compares row
counts, checks every vector (dimension, finite, unit length), the full-text index, the saved
document list, the vector and file-stat caches, and counts duplicates.

The repair first writes its marker (ingest/pending.py) with every document the library is
known to hold: the rows of the newest version that reads, the document list, else its copy
beside the row digests, else the file-stat cache. It sets damaged files aside
(``<index>/quarantine/``), goes back to the newest table version that opens and whose files
all read (LanceDB keeps versions for ``index_keep_minutes``), drops documents that version
has but the list does not, removes duplicate rows, re-embeds documents whose vectors are
invalid, reads again from their files documents whose rows it cannot vouch for, rebuilds the
full-text index and the caches, and re-indexes from their files the documents the version
lacks. Only then is the table sealed and the marker removed; every document it knew of and
could not bring back is named (and the command exits 1).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from localcrag.ingest import pending, rowsums, seal, stamp
from localcrag.ingest.faults import IndexDamaged, in_the_way, not_a_folder, translate
from localcrag.ingest.files import source_path
from localcrag.ingest.filestat import FileStats
from localcrag.ingest.maintain import (
    dedupe,
    documents_state,
    duplicates,
    known_documents,
    rebuild_indexes,
)
from localcrag.ingest.unread import Unread
from localcrag.ingest.vcache import VectorCache
from localcrag.ingest.vsync import invalid_rows


@dataclass
class Checkup:
    lines: list[tuple[bool, str]] = field(default_factory=list)  # (ok, what was found)
    damaged: bool = False  # some rows cannot be read, or the newest version is unreadable or gone
    duplicate_docs: list[str] = field(default_factory=list)
    fts_ok: bool = True
    lost: list[str] = field(default_factory=list)  # listed documents absent from the table
    bad_vectors: list[str] = field(default_factory=list)  # documents with invalid vectors
    rotten: list[str] = field(default_factory=list)  # rows differ from their write-time digest
    caches: list[Path] = field(default_factory=list)  # damaged caches: deleted, rebuilt
    # (document, the ingest's line): pages read neither from their text layer nor by OCR;
    # not a fault of the index (no repair changes it), so it leaves ``ok`` as it is
    unread: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(ok for ok, _ in self.lines)

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "checks": [{"ok": ok, "what": w} for ok, w in self.lines],
            "unread": [{"path": p, "warning": w} for p, w in self.unread],
        }


@dataclass
class Repair:
    restored_version: int | None = None
    removed_duplicates: int = 0
    fts_rebuilt: bool = False
    reindexed: list[str] = field(default_factory=list)
    unrecoverable: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "restored_version": self.restored_version,
            "removed_duplicates": self.removed_duplicates,
            "fts_rebuilt": self.fts_rebuilt,
            "reindexed": self.reindexed,
            "unrecoverable": self.unrecoverable,
            "notes": self.notes,
        }


def _missing_file(exc: BaseException) -> str:
    """The data file named in a LanceDB 'Not found' error, relative to the table folder."""
    m = re.search(r"Not found: (?:Wrapped error: Not found: )?([^\s,]+)", str(exc.__cause__ or exc))
    return m.group(1).split(".lance/", 1)[-1] if m else ""


def _scan(table: Any) -> Any:
    """Every row and column of the checked-out version (raises when a file is unreadable)."""
    return table.to_arrow()


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _seal_lines(store: Any, up: Checkup) -> None:
    if store.location.folder is None:
        return
    found = seal.check(store, full=True)
    if found.state:
        up.lines.append(
            (False, f"seal (the record of the index's files) {found.state}: repair writes it again")
        )
    if found.lost_version is not None:
        up.damaged = True
        up.lines.append((False, found.describe()))
    elif found.changed:
        up.lines.append((False, found.describe()))
    if found.missing and found.lost_version is None:
        up.lines.append(
            (
                False,
                f"{len(found.missing)} file(s) of the index missing: {', '.join(found.missing[:3])}",
            )
        )


def _sidecar_lines(store: Any, up: Checkup) -> None:
    folder = store.location.folder
    if folder is None:
        return
    state = documents_state(store)
    up.lines.append(
        (
            state is None,
            "document list (for repairs) "
            + (state or "readable")
            + (": repair writes it again from the table" if state else ""),
        )
    )
    stats = Path(folder) / f"{store.name}.filestat.json"
    if FileStats(stats).state == "damaged":
        up.caches.append(stats)
        up.lines.append(
            (False, "file-stat cache damaged: repair deletes it (the next ingest hashes each file)")
        )
    cache = Path(folder) / f"{store.name}.vcache"
    state = VectorCache(cache).status(store.dim)
    if state == "damaged":
        up.caches.append(cache)
        up.lines.append(
            (False, "vector cache damaged (not used): repair builds it again from the table")
        )
    elif state == "stale":
        up.lines.append(
            (
                True,
                "vector cache from an older localcrag: rebuilt from the table when it is next saved",
            )
        )


def _small_files(store: Any, version: int) -> list[tuple[Path, str]]:
    """The small files every write rewrites (Lance's version hint, the writer lock, the change
    stamp, the file-stat cache) that are missing or do not read as such a file: (path, what
    it is and why its damage is harmless). Nothing reads them for an answer, but the doctor
    names every damaged file and the repair writes these again."""
    folder = store.location.folder
    if folder is None:
        return []
    folder = Path(folder)
    hint = folder / f"{store.name}.lance" / "_versions" / "latest_version_hint.json"
    out = []

    def text(p: Path) -> str | None:
        try:
            return p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    try:
        hint_ok = json.loads(text(hint) or "")["version"] == version
    except (ValueError, KeyError, TypeError):
        hint_ok = False
    if not hint_ok:
        out.append((hint, "version hint: only a hint (Lance lists the versions when it is wrong)"))
    if not re.fullmatch(r"\d+", text(folder / "writer.lock") or ""):
        out.append((folder / "writer.lock", "writer lock: holds the writer's pid only"))
    if not re.fullmatch(r"\d+\.\d+ \d+\n?", text(folder / stamp.NAME) or ""):
        out.append(
            (folder / stamp.NAME, "change stamp: what readers poll for another process's write")
        )
    if not (folder / f"{store.name}.filestat.json").exists():
        out.append(
            (
                folder / f"{store.name}.filestat.json",
                "file-stat cache missing: the next ingest hashes each file",
            )
        )
    return out


def _rewrite_small_files(store: Any, found: list[tuple[Path, str]]) -> list[str]:
    """Write the small files again (the file-stat cache is written by the repair's ingest)."""
    done = []
    for path, _ in found:
        if path.name == "latest_version_hint.json":
            path.write_text(json.dumps({"version": store.table.version}), encoding="utf-8")
        elif path.name == "writer.lock":  # held by this repair: its pid, the rest of the file cut
            with open(path, "r+b") as fh:
                fh.truncate(0)
                fh.write(str(os.getpid()).encode())
        elif path.name == stamp.NAME:
            stamp.touch(store)
        else:
            continue
        done.append(f"wrote {path.name} again")
    return done


def check(store: Any) -> Checkup:
    """Verify the current table of ``store``: one line per check. A file where a folder of
    the index should be, or a file the doctor may not read, is one error naming it (never
    "healthy", never a traceback): no repair can fix either."""
    if (blocking := in_the_way(store.path, store.name)) is not None:
        raise not_a_folder(blocking)
    try:
        return _check(store)
    except (OSError, RuntimeError) as exc:
        mapped = translate(exc, store.path, reading=True, name=store.name)
        if mapped is None:
            raise
        raise mapped from exc


def _check(store: Any) -> Checkup:
    up = Checkup()
    add = up.lines.append
    store.verify = False  # the doctor reads what is there and says what is wrong with it
    if pending.exists(store):
        add((False, "a repair was interrupted before it finished: run `localcrag doctor --repair`"))
    listed = known_documents(store)
    if not store.exists():
        up.lost = sorted(listed)
        add(
            (
                not listed,
                f"no index yet in {store.path}"
                + (f"; {len(listed)} listed documents missing" if listed else ""),
            )
        )
        return up
    _seal_lines(store, up)
    _sidecar_lines(store, up)
    try:
        t = store.table
        versions = t.list_versions()
    except Exception as exc:  # noqa: BLE001 - the newest manifest cannot be read
        up.damaged = True
        add((False, f"the newest table version cannot be opened ({_first_line(exc)})"))
        return up
    folder = store.location.folder
    where = (
        f"{_size(folder / f'{store.name}.lance') / 1e6:.1f} MB on disk"
        if folder
        else f"on {store.path}"
    )
    add((True, f"table {store.name}: version {t.version}, {len(versions)} versions kept, {where}"))
    for path, what in _small_files(store, t.version):
        add((False, f"{path.name} missing or damaged ({what}): repair writes it again"))
    expected = t.count_rows()
    try:
        rows = _scan(t)
    except Exception as exc:  # noqa: BLE001 - any unreadable file: the index is damaged
        up.damaged = True
        name = _missing_file(exc)
        add(
            (
                False,
                "data file missing: " + name
                if name
                else "rows cannot be read (a data file is damaged)",
            )
        )
        return up
    add((rows.num_rows == expected, f"{rows.num_rows} rows read of {expected} counted"))
    dim = t.schema.field("vector").type.list_size
    flat = (
        rows["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False)
        if rows.num_rows
        else []
    )
    vecs = np.asarray(flat, dtype=np.float32).reshape(-1, dim)
    bad = invalid_rows(vecs)
    up.bad_vectors = sorted({rows["source"][int(i)].as_py() for i in bad})
    add(
        (
            dim == store.dim and not len(bad),
            f"vectors: dimension {dim} (embedder: {store.dim}), {len(bad)} empty or "
            f"invalid" + (f" in {len(up.bad_vectors)} document(s)" if len(bad) else ""),
        )
    )
    if store.location.folder is not None and rows.num_rows:
        hashes = dict(zip(rows["source"].to_pylist(), rows["doc_hash"].to_pylist()))
        up.rotten, _unknown = rowsums.differing(
            rowsums.read(store), rowsums.columns_of(rows), hashes
        )
        add(
            (
                not up.rotten,
                f"{len(up.rotten)} document(s) whose rows differ from what was written "
                f"({', '.join(up.rotten[:3])}): repair reads them again from their files"
                if up.rotten
                else "rows as written (digests recorded at write time"
                + (f"; {len(_unknown)} document(s) from before digests)" if _unknown else ")"),
            )
        )
    n_extra, up.duplicate_docs = duplicates(store)
    add(
        (
            not up.duplicate_docs,
            f"duplicates: {n_extra} repeated chunk ids, "
            f"{len(up.duplicate_docs)} documents with more than one copy",
        )
    )
    up.fts_ok = _fts_works(t) if rows.num_rows else True
    add(
        (
            up.fts_ok,
            "full-text index present and searchable"
            if up.fts_ok
            else "full-text index missing or broken",
        )
    )
    present = set(rows["source"].to_pylist())
    up.unread = [
        (source, line)
        for source, lines in sorted(Unread(store).entries.items())
        if source in present
        for line in lines
    ]
    up.lost = sorted(set(listed) - present)
    add(
        (
            not up.lost,
            f"{len(present)} documents; "
            + (
                f"{len(up.lost)} listed documents missing"
                if up.lost
                else "all listed documents present"
            ),
        )
    )
    return up


def invalid_vector_sources(store: Any) -> list[str]:
    """Documents with a vector that is not a finite unit vector of the table's dimension (read
    a batch at a time): what ``reindex`` re-embeds even though their files are unchanged."""
    from localcrag.ingest.vectors import READ_BATCH

    n = store.count()
    if not n:
        return []
    bad: set[str] = set()
    try:
        for batch in (
            store.table.search().select(["source", "vector"]).limit(n).to_batches(READ_BATCH)
        ):
            flat = batch["vector"].flatten().to_numpy(zero_copy_only=False)
            m = (
                np.asarray(flat, np.float32).reshape(batch.num_rows, -1)
                if batch.num_rows
                else np.zeros((0, 1))
            )
            rows = invalid_rows(m) if m.shape[1] == store.dim else np.arange(batch.num_rows)
            bad.update(batch["source"][int(i)].as_py() for i in rows)
    except (OSError, RuntimeError, ValueError) as exc:
        raise (translate(exc, store.path) or exc) from exc
    return sorted(bad)


def _first_line(exc: BaseException) -> str:
    text = re.sub(r"lance error: |,?\s*/\S*\.(cargo|rs)\S*", "", str(exc).strip().split("\n")[0])
    return text[:160]


def _fts_works(table: Any) -> bool:
    """The full-text index answers, also behind a prefilter on ``source`` (a scoped search,
    which reads the source index where there is one)."""
    try:
        if not any(i.index_type == "FTS" for i in table.list_indices()):
            return False
        search = table.search("index", query_type="fts").select(["chunk_id"]).limit(1)
        search.to_list()
        search.where("source = ''", prefilter=True).to_list()
        return True
    except Exception:  # noqa: BLE001 - any failure means the full-text half is not working
        return False


def _last_good_version(table: Any) -> int | None:
    """The newest version whose every file reads, or None."""
    for v in sorted((v["version"] for v in table.list_versions()), reverse=True):
        try:
            table.checkout(v)
            _scan(table)
            return v
        except Exception:  # noqa: BLE001 - files of that version are gone too: try older
            continue
    return None


def _open_newest_readable(store: Any, out: Repair, aside: list[str]) -> bool:
    """Open the table, setting aside newest manifests that cannot be read; False when none opens."""
    versions = sorted(
        (
            (seal.version_of(p.name), p)
            for p in (Path(store.location.folder) / f"{store.name}.lance" / "_versions").glob(
                "*.manifest"
            )
        ),
        key=lambda t: t[0] or -1,
        reverse=True,
    )
    for v, manifest in [(None, None), *versions]:
        if manifest is not None:
            aside.append(f"_versions/{manifest.name}")
            seal.quarantine(store, [aside[-1]])
            out.notes.append(f"set aside the unreadable manifest of version {v}")
        store.reopen()
        try:
            store.table.list_versions()
            return True
        except Exception as exc:  # noqa: BLE001 - only a damaged manifest is set aside
            lost = "was not found" in str(exc)  # listed, yet no manifest of it opens
            if not lost and not isinstance(translate(exc, store.path), IndexDamaged):
                raise
    return False


def _drop(store: Any) -> None:
    """Drop a table no version of which reads; one that LanceDB cannot even open (every
    manifest set aside) is moved to the quarantine folder whole."""
    try:
        store._db.drop_table(store.name)
    except Exception:  # noqa: BLE001 - not a table any more: its folder is set aside
        folder = Path(store.location.folder) / f"{store.name}.lance"
        dest = (
            Path(store.location.folder)
            / "quarantine"
            / f"{folder.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        )
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(folder), str(dest))
    store._table = None


def repair(library: Any) -> Repair:
    """Bring the index back to a working state (under the writer lock); see the module doc."""
    store, out = library.store, Repair()
    store.verify = False  # the repair reads what is there (a marker or damage is its work)
    with library.writing():
        listed = known_documents(store)
        local = store.location.folder is not None
        before = _present_sources(store)
        expected = pending.start(store, {**before, **listed}) if local else {**before, **listed}
        if pending_from := (set(expected) - set(before) - set(listed)):
            listed = {**listed, **{s: expected[s] for s in pending_from}}
            out.notes.append(
                f"continued an interrupted repair ({len(pending_from)} document(s) it had to restore)"
            )
        up = check(store)
        if local:
            changed = seal.check(store, full=True).changed
            where = seal.quarantine(store, changed)
            if where is not None:
                out.notes.append(f"moved {len(changed)} damaged file(s) to {where}")
            for cache in up.caches:
                shutil.rmtree(cache) if cache.is_dir() else cache.unlink()
                out.notes.append(f"deleted the damaged {cache.name} (rebuilt)")
            store._ram = type(store._ram)(store.dim, store._ram.cache)  # nothing kept from before
        opened = not local or not store.exists() or _open_newest_readable(store, out, [])
        if opened and store.exists():
            up = check(store)
        if up.damaged or not opened:
            good = _last_good_version(store.table) if opened else None
            if good is not None:
                store.table.restore(good)
                out.restored_version = good
            else:
                _drop(store)
                out.notes.append(
                    "no readable version left: the table was dropped and is rebuilt from files"
                )
            store._table = None
            up = check(store)
        if up.duplicate_docs:
            out.removed_duplicates = dedupe(store, up.duplicate_docs)
        present = set(store.file_hashes())
        if listed and out.restored_version is not None:  # it may hold documents removed since
            for src in sorted(present - set(listed)):
                store.remove(src)
            present &= set(listed)
        untrusted = _untrusted_rows(store, up, out)  # rows that differ from what was written
        for src in untrusted:
            if not source_path(src).is_file():  # no file to read them from again: not served
                store.remove(src)
                present.discard(src)
        # everything the library held: the list, and the newest version's rows a stale list
        # (a writer stopped before saving it) lacks, which a restored version dropped above
        wanted = sorted(set(expected) | present)
        paths = [source_path(s) for s in wanted if source_path(s).is_file()]  # non-UTF-8 names too
        force = set(up.bad_vectors) | set(untrusted)
        report = library.ingest(paths, force=force) if paths else None  # lost, changed, invalid
        out.reindexed = report.indexed if report else []
        failed = {p for p, _ in report.failed} if report else set()
        if (not up.fts_ok or not _fts_works(store.table)) and store.count():
            out.fts_rebuilt = rebuild_indexes(store, locked=True)
        if store.exists():
            out.notes += _rewrite_small_files(store, _small_files(store, store.table.version))
        after = set(store.file_hashes())
        out.unrecoverable = sorted((set(expected) - after) | (failed - after))
        library._changed = (
            True  # compacted, document list saved and files sealed as the lock is let go
        )
    if local:
        pending.finish(store)
    store.verify = True
    return out


def _present_sources(store: Any) -> dict[str, str]:
    """Documents of the newest table version that reads (source -> content hash); {} when
    none reads: the repair's own steps find out which version does."""
    try:
        return store.file_hashes() if store.exists() else {}
    except Exception:  # noqa: BLE001 - a damaged table: the lists kept beside it tell
        store.reopen()
        return {}


def _untrusted_rows(store: Any, up: Checkup, out: Repair) -> list[str]:
    """Documents whose rows cannot be vouched for before the table is sealed again: rows that
    differ from the digest recorded when they were written (bit rot the seal would have shown,
    had it not been lost too), and, when the seal itself is lost or damaged, rows with no
    digest recorded (a table from before digests): both are read again from their files."""
    if not store.exists() or not store.count():
        return []
    rows = store.columns(store._cols([*rowsums.COLUMNS, "doc_hash"]))  # (older: no locator)
    hashes = dict(zip(rows["source"], rows["doc_hash"]))
    bad, unknown = rowsums.differing(rowsums.read(store), rows, hashes)
    if bad:
        out.notes.append(
            f"{len(bad)} document(s) whose rows differ from what was written: read again "
            "from their files"
        )
    sealed = store.location.folder is None or seal.check(store).state is None
    return sorted(set(bad) | (set() if sealed else set(unknown)))
