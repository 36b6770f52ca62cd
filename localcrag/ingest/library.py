"""Ingestion and the document library: incremental, per-file atomic, never loses work.

Unchanged files (same content hash) are skipped. A changed file's chunks are replaced
in one commit. Bad files are reported one line each and never stop the others. Files are
parsed on a reader thread up to READ_AHEAD files ahead (ingest/readahead.py), so a file's
parse overlaps the last ones' embedding; results are taken in the files' order. Chunks
from several small files are embedded together (the embedder is the bottleneck and
likes full batches) and committed together, whole documents only; a document of more than
PART_CHUNKS chunks is committed in parts marked unfinished until the last (a killed ingest
keeps them and the next resumes after them). Every write holds the
index's writer lock, and the hashes that decide "unchanged" are read under it, so two
ingests of the same folder never both insert a document. After a run the index is
compacted and old versions beyond the retention window are dropped.

A run stopped after a commit (a full disk in a later commit, the compaction or the
document list's write; a kill) leaves rows that neither the seal nor the document list
records: the committed documents are kept (the next run indexes only the rest), and the
next run writes the list and the seal even when every file is unchanged. The file-stat
cache is saved only after both are written.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from localcrag.errors import LocalcragError
from localcrag.ingest import pending, seal, sidecar, stamp
from localcrag.ingest.exclusions import Exclusions
from localcrag.ingest.faults import DiskFull, IndexDamaged, disk_full, translate
from localcrag.ingest.files import source_key, source_path
from localcrag.ingest.filestat import FileStats
from localcrag.ingest.heap import bound_heap
from localcrag.ingest.location import index_location, writer_lock
from localcrag.ingest.maintain import compact, documents_path, load_documents, save_documents
from localcrag.ingest.overview import Overview, Overviews
from localcrag.ingest.overview import make as make_overview
from localcrag.ingest.progress import IngestProgress, IngestReport, Rate
from localcrag.ingest.readahead import ReadAhead, Stopped
from localcrag.ingest.store import LanceStore, SourceInfo, table_name
from localcrag.ingest.unread import Unread
from localcrag.models.embed import Embedder, load_embedder
from localcrag.settings import Settings
from localcrag.types import Chunk, Scope

# bump when chunking output changes: a new table is built (c2: .docx tables apart; c3: .docx
# body text numbered by the tables before it, so text without a heading is never "p. 1";
# c4: a sheet or CSV read table by table, each row naming its file, sheet, table and columns;
# c5: a document's first line says what it is, every chunk's heading starts with its title;
# c6: a format with no title of its own (plain text, a scan) is named by the short title
# line it opens with; c7: a .docx form laid out in nested tables read cell by cell, where its
# text had been lost; a PDF table set by alignment read with its text cells ("JUL 2023"),
# its groups' labels and the column names of the table above it on the page; notes above a
# sheet's table kept apart from its column names; c8: a PDF page drawn line by line across
# its columns read column by column; c9: a PDF table set by alignment fills its groups' labels down
# past a label wrapped onto two lines, and reads a text cell set before its row's figures;
# a slide's chart read as a table of its data; c10: a group of rows too short to be a table
# hands its header to the headerless groups below it on the page)
CHUNKER_VERSION = "c10"
EMBED_BATCH_CHUNKS = 128  # chunks gathered before one embedding call (and one commit round)
PART_CHUNKS = 2048  # a document with more chunks is committed this many at a time (~40 s)
PARTIAL = "partial:"  # doc_hash prefix while a document's commit in parts is unfinished
EMBED_AHEAD_CHUNKS = 64  # embedded before the round is full when the next file is still read
EMBED_PROGRESS_CHUNKS = 128  # per embedding call, so progress moves; below ~64 (embed_onnx.BULK)
# the embedder uses its non-spinning session, and ingest measured 0.65x a plain encode
READ_AHEAD = 2  # files parsed ahead of the one being embedded (memory: at most this many)


@dataclass
class _Pending:
    source: str
    doc_hash: str
    pages: int
    chunks: list[Chunk]
    warnings: tuple[str, ...] = ()
    vectors: Any = None  # embedded ahead of the commit (an ndarray), or not yet


class Searchable(Protocol):
    """What answering a question reads of a library (the pipeline, its retriever and
    calibration): a ``Library``, or the app's view of whichever index is active."""

    @property
    def store(self) -> LanceStore: ...

    @property
    def embedder(self) -> Embedder: ...

    def count(self) -> int: ...

    def change_stamp(self) -> str: ...

    def sources(self) -> list[SourceInfo]: ...

    def documents(self, sources: list[str]) -> dict[str, str]: ...

    def scope(self, patterns: Sequence[str]) -> Scope: ...

    def scope_of(self, sources: Sequence[str], named_in_question: str = "") -> Scope: ...

    def overview(self, source: str) -> Overview | None: ...

    def get_chunk(self, chunk_id: str) -> Chunk | None: ...


class Library:
    """The user's indexed documents: ingest, list, remove, look up chunks (a Searchable)."""

    def __init__(
        self, settings: Settings, embedder: Embedder | None = None, store: LanceStore | None = None
    ) -> None:
        self.settings = settings
        location = (
            index_location(settings) if store is None else None
        )  # offline + S3: refused first
        self.embedder = embedder or load_embedder(
            settings.model_path(settings.models.embedder),
            settings.generation.threads,
            settings.models.embedder_backend,
        )
        self.max_tokens = min(settings.indexing.chunk_tokens, self.embedder.max_tokens)
        if store is None:
            assert location is not None  # computed above whenever no store is given
            name = table_name(
                self.embedder.fingerprint(),
                self.max_tokens,
                settings.indexing.chunk_overlap,
                CHUNKER_VERSION,
            )
            store = LanceStore(location, name, self.embedder.dim)
        self.store = store
        self.lock = writer_lock(self.store.location)  # flock on a folder; none on S3
        self.wait_for_lock = True  # False: IndexBusy at once when another process writes
        self.on_lock_wait: Callable[[str], None] | None = None  # "another ingest is running..."
        self._changed = False  # the table changed inside the current writing() block
        self._committed: list[_Pending] = []  # documents committed by the running ingest
        self._on_commit: list[Callable[[], None]] = []  # run once the list and seal are written
        self._overviews = Overviews(None)  # the running ingest's (ingest/overview.py)
        self._made: dict[tuple[str, str], Overview] = {}  # made on request, not by ingest

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the index's writer lock (re-entrant) for a block of writes; when the outermost
        block changed the table, compact it and save the document list before letting go."""
        try:
            self.lock.acquire(self.wait_for_lock, self.on_lock_wait)
        except OSError as exc:  # the lock file cannot be created: a read-only or full folder
            raise (translate(exc, self.store.path, name=self.store.name) or exc) from exc
        outer = self.lock.depth == 1
        try:
            if outer and self.store.verify:
                self._check_before_writing()
            yield
            if outer and self._changed:
                try:
                    compact(self.store, self.settings.storage.index_keep_minutes)
                    save_documents(self.store)
                    stamp.touch(self.store)  # other processes (a running app) see the change
                except (OSError, RuntimeError) as exc:  # a full disk: one line, not lance's
                    raise (translate(exc, self.store.path, name=self.store.name) or exc) from exc
            if outer:
                for then in self._on_commit:
                    then()
        finally:
            if outer:
                self._changed = False
                self._on_commit = []
            self.lock.release()

    def _check_before_writing(self) -> None:
        """Under the lock, before any write: a finished repair, and the table's files as
        sealed. A long-running writer (``watch``, the app) opened the table long ago; writing
        now would seal files damaged since then as if they were sound."""
        pending.refuse(self.store)
        if self.store.location.folder is not None and self.store.exists():
            try:
                seal.verify(self.store)
            except IndexDamaged:
                self.store.reopen()  # the next read opens (and checks) the table afresh
                raise

    # --- queries ------------------------------------------------------------------------

    def sources(self) -> list[SourceInfo]:
        return self.store.sources()

    def documents(self, sources: list[str]) -> dict[str, str]:
        """What each document is, as its passages carry it (``LanceStore.documents``)."""
        return self.store.documents(sources)

    def scope(self, patterns: Sequence[str]) -> Scope:
        """The indexed documents ``patterns`` name (``ingest/scope.py``), with their passage
        count; a pattern naming none is an error that says so."""
        from localcrag.ingest.scope import resolve

        sources = resolve(patterns, [s.source for s in self.sources()])
        return Scope(tuple(patterns), sources, self.store.count_in(sources))

    def scope_of(self, sources: Sequence[str], named_in_question: str = "") -> Scope:
        """The scope of these indexed documents (as a question named them, if it did)."""
        found = tuple(sources)
        patterns = (named_in_question,) if named_in_question else tuple(Path(s).name for s in found)
        return Scope(patterns, found, self.store.count_in(found), named_in_question)

    def overview(self, source: str) -> Overview | None:
        """The document's overview (ingest/overview.py): the one ingest wrote for its indexed
        version, or for a document indexed before overviews were, one made now from its
        stored passages and vectors (kept for this process). None: not indexed."""
        doc_hash = self.store.doc_hash(source)
        if doc_hash is None:
            return None
        made = Overviews(self.store).get(source, doc_hash) or self._made.get((source, doc_hash))
        if made is None:
            chunks, vectors, pages = self.store.document(source)
            made = make_overview(source, doc_hash, chunks, vectors, pages)
            self._made[(source, doc_hash)] = made
        return made

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        return self.store.get(chunk_id)

    def count(self) -> int:
        return self.store.count()

    def change_stamp(self) -> str:
        """Changes whenever any process wrote to this index (ingest/stamp.py): cheap to poll."""
        return stamp.read(self.store)

    def refresh(self) -> None:
        """See what other processes committed: an open LanceDB table stays at its version
        until told to check out the latest."""
        if self.store.exists():
            self.store.table.checkout_latest()

    def remove(self, path: Path | str, keep_out: bool = False) -> int:
        """Remove a document (chunks removed from the current table); it is also dropped from
        tables built with other settings, so it never comes back from there. ``keep_out``:
        the user removed it, so folder ingests and watched folders leave it out while its
        file exists (ingest/exclusions.py)."""
        source = source_key(Path(path).expanduser().resolve())
        with self.writing():
            n = self.store.remove(source)
            self.store.remove_from_other_tables(source)
            self._changed = self._changed or n > 0
            if keep_out and n and source_path(source).exists():
                self.exclusions.add([source])
        return n

    def remove_under(self, path: Path | str, keep_out: bool = False) -> list[tuple[str, int]]:
        """Remove one document, or every document indexed from a folder: (source, chunks).
        ``keep_out``: the user removed them; those whose files still exist are kept out of
        later folder ingests and watched folders (ingest/exclusions.py)."""
        import os

        target = source_key(Path(path).expanduser().resolve())
        sources = [
            s
            for s in self.store.file_hashes()
            if s == target or s.startswith(target.rstrip(os.sep) + os.sep)
        ]
        with self.writing():
            removed = [(s, self.remove(s)) for s in sorted(sources)]
            if keep_out:  # one write of the list for a whole folder
                self.exclusions.add(s for s, n in removed if n and source_path(s).exists())
        return removed

    @property
    def exclusions(self) -> Exclusions:
        """The documents the user removed and wants kept out (read afresh: another process
        may have written them)."""
        return Exclusions(self.store.location.folder)

    def previous_sources(self) -> list[str]:
        """Documents indexed under other embedder/chunking settings that still exist."""
        seen: set[str] = set()
        for name in self.store.other_tables():
            seen.update(self.store.sources_in(name))
        return sorted(s for s in seen if source_path(s).exists())

    # --- ingestion ----------------------------------------------------------------------

    def _chunk_file(
        self, path: Path, doc_hash: str, on_page: Callable[[int, int], None] | None = None
    ) -> _Pending:
        from localcrag.ingest.chunking import chunk_pages
        from localcrag.ingest.context import ReadContext
        from localcrag.ingest.parse import parse_document

        parsed = parse_document(path, ctx=ReadContext.from_settings(self.settings, on_page))
        source = source_key(path)  # a name's non-UTF-8 bytes as \xe9: LanceDB stores UTF-8
        doc_id = hashlib.sha1(source.encode()).hexdigest()[:10] + "-" + doc_hash[:8]
        count = self.embedder.count_tokens_batch
        chunks = chunk_pages(
            parsed,
            count,
            self.max_tokens,
            self.settings.indexing.chunk_overlap,
            doc_id=doc_id,
            source=source,
        )
        if not chunks:
            raise LocalcragError(f"{path.name}: no text to index", "is the file empty?")
        n_pages = max((p.number for p in parsed.pages), default=0)
        return _Pending(source, doc_hash, n_pages, chunks, tuple(parsed.warnings))

    def _embed(self, pending: list[_Pending], progress: Callable[..., None]):  # noqa: ANN202
        """Embed a round's chunks a slice at a time, saying which file and how fast: a round
        of many small files is otherwise one silent call ("0/3 parsed" for 15 s)."""
        import time

        import numpy as np

        texts = [c.text for p in pending for c in p.chunks]
        owner = [p.source for p in pending for _ in p.chunks]
        parts, t0 = [], time.perf_counter()
        cuts = list(range(0, len(texts), EMBED_PROGRESS_CHUNKS))[1:]
        if cuts and len(texts) - cuts[-1] < EMBED_PROGRESS_CHUNKS // 2:
            cuts.pop()  # a short tail joins the slice before it (a small call runs slower)
        for at, end in zip([0] + cuts, cuts + [len(texts)]):
            progress(
                owner[at],
                "embedding",
                chunks_done=at,
                chunks_total=len(texts),
                rate=at / max(time.perf_counter() - t0, 1e-9) if at else 0.0,
            )
            parts.append(np.asarray(self.embedder.embed(texts[at:end])))
        progress(
            owner[-1],
            "embedding",
            chunks_done=len(texts),
            chunks_total=len(texts),
            rate=len(texts) / max(time.perf_counter() - t0, 1e-9),
        )
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def _embed_into(self, pending: list[_Pending], progress: Callable[..., None]) -> None:
        """Embed the files of ``pending`` not embedded yet, in one call."""
        todo = [p for p in pending if p.vectors is None]
        if todo:
            vectors, at = self._embed(todo, progress), 0
            for p in todo:
                p.vectors, at = vectors[at : at + len(p.chunks)], at + len(p.chunks)

    def _embed_ahead(self, pending: list[_Pending], progress: Callable[..., None]) -> None:
        """Embed the round's files while the reader reads the next file; too few chunks wait
        for the round (a small call runs slower: EMBED_PROGRESS_CHUNKS)."""
        if sum(len(p.chunks) for p in pending if p.vectors is None) >= EMBED_AHEAD_CHUNKS:
            self._embed_into(pending, progress)

    def _flush(
        self, pending: list[_Pending], report: IngestReport, progress: Callable[..., None]
    ) -> None:
        if not pending:
            return
        self._embed_into(pending, progress)
        docs = []
        for p in pending:
            docs.append((p.source, p.doc_hash, p.pages, p.chunks, p.vectors))
            self._overviews.record(
                make_overview(p.source, p.doc_hash, p.chunks, p.vectors, p.pages)
            )
        self.store.replace_files(docs)
        for p in pending:
            p.vectors = (
                None  # committed: the run keeps the list of its documents, not their vectors
            )
        self._committed += pending
        self._changed = True
        self._report(pending, report, progress)
        pending.clear()

    def _commit_in_parts(
        self, doc: _Pending, report: IngestReport, progress: Callable[..., None]
    ) -> None:
        """A large document (a sheet of 100,000 rows: ~20 min to embed) is embedded and
        committed PART_CHUNKS at a time, so a killed ingest keeps what it did. Its rows carry
        ``PARTIAL`` + its hash until the last part is in (then one update gives them the
        hash): an unfinished document never reads as unchanged, and the next ingest of the
        same file resumes after the parts already committed instead of embedding them
        again. The document's old version stays searchable until the last part is in."""
        marker = PARTIAL + doc.doc_hash
        done = self.store.chunk_ids(doc.source, marker)
        todo = [c for c in doc.chunks if c.chunk_id not in done]
        for at in range(0, len(todo), PART_CHUNKS):
            part = _Pending(doc.source, marker, doc.pages, todo[at : at + PART_CHUNKS])
            vectors = self._embed([part], progress)
            self.store.replace_files(
                [(doc.source, marker, doc.pages, part.chunks, vectors)], add=True
            )
            self._changed = True
        self.store.finish_parts(doc.source, marker, doc.doc_hash)
        # embedded a part at a time: its sentences are chosen by their words alone
        self._overviews.record(make_overview(doc.source, doc.doc_hash, doc.chunks, None, doc.pages))
        self._changed = True
        self._committed.append(doc)
        self._report([doc], report, progress)

    def _report(
        self, pending: list[_Pending], report: IngestReport, progress: Callable[..., None]
    ) -> None:
        for p in pending:
            n = len(p.chunks)
            report.indexed.append(p.source)
            report.warnings.extend((p.source, w) for w in p.warnings)
            report.new_chunks += n
            report.pages += p.pages
            progress(p.source, "indexed")

    def ingest(
        self,
        paths: Sequence[Path | str],
        prune: bool = False,
        on_progress: Callable[[IngestProgress], None] | None = None,
        force: bool | Collection[str] = False,
        take_back: bool = True,
    ) -> IngestReport:
        """Index files and folders. Returns what happened to each file.

        ``force`` re-parses and re-embeds files even when unchanged (a re-index; or only the
        named sources): their old chunks stay searchable until the new ones replace them.
        Files the user removed stay out (``report.excluded``) unless named here themselves
        and ``take_back`` (False: a watcher names files, the user did not)."""
        bound_heap()  # big model buffers go back to the system when freed (ingest/heap.py)
        with self.writing():
            report = IngestReport()
            try:
                return self._ingest(paths, prune, on_progress, force, report, take_back)
            except DiskFull as exc:
                n, kept = len(report.indexed), self._list_committed()
                raise disk_full(
                    self.store.path,
                    f": {n} document(s) of this run were committed before it filled"
                    if kept or not n
                    else f": the {n} document(s) this run wrote could not be recorded",
                ) from exc
            finally:
                self._committed = []

    def _list_committed(self) -> bool:
        """After a run stopped by a full disk: list and seal the documents it committed, so
        the next run keeps them; False when nothing was committed or that fails too (then
        the next run indexes them again)."""
        if not self._committed:
            return False
        try:
            save_documents(self.store)
            return True
        except (OSError, RuntimeError):
            return False

    def _unrecorded(self, known: dict[str, str]) -> bool:
        """Whether rows exist that the seal and the document list do not both cover (a run
        stopped by a full disk or a kill after a commit): this run then writes them."""
        if documents_path(self.store) is None or not known:  # object storage: neither is kept
            return False
        body, _ = sidecar.read(seal.path(self.store))
        sealed = isinstance(body, dict) and body.get("version") == self.store.table.version
        return not sealed or load_documents(self.store) != known

    def _ingest(
        self,
        paths: Sequence[Path | str],
        prune: bool,
        on_progress: Callable[[IngestProgress], None] | None,
        force: bool | Collection[str],
        report: IngestReport,
        take_back: bool = True,
    ) -> IngestReport:
        from localcrag.ingest.walk import content_hash, iter_files

        roots = [Path(p).expanduser() for p in paths]
        skipped: list[Path] = []
        files, errors = iter_files(roots, skipped)
        out = self.exclusions
        if out.sources:  # removed by the user: a file named here comes back, a folder's stays out
            named = {source_key(r.resolve()) for r in roots if r.is_file()} if take_back else set()
            out.discard(named & out.sources)
            report.excluded = [str(p) for p in files if source_key(p) in out]
            files = [p for p in files if source_key(p) not in out]
        report.failed = [(str(p), msg) for p, msg in errors]
        report.skipped = [str(p) for p in skipped]
        known = self.store.file_hashes()
        self._changed = self._changed or self._unrecorded(known)  # list and seal written
        folder = self.store.location.folder  # None: shared index
        stats = FileStats(Path(folder) / f"{self.store.name}.filestat.json" if folder else None)
        unread = Unread(self.store)
        self._overviews = Overviews(self.store)
        overviews = self._overviews
        seen = {source_key(p): _stat(p) for p in files}
        rate = Rate(sum(st.st_size for st in seen.values() if st))
        total = len(files)
        done = 0

        told = threading.Lock()  # the reader thread reports too: one report at a time

        def progress(path: str, stage: str, **extra: Any) -> None:
            with told:
                _progress(path, stage, **extra)

        def _progress(path: str, stage: str, **extra: Any) -> None:
            nonlocal done
            if stage in ("indexed", "unchanged", "failed"):
                done += 1
                st = seen.get(path)
                rate.finished(st.st_size if st is not None else 0, stage != "unchanged")
            if on_progress:
                per_s, eta = rate.now()
                on_progress(
                    IngestProgress(done, total, path, stage, files_per_s=per_s, eta_s=eta, **extra)
                )

        def read(path: Path) -> tuple[str, _Pending | str | None]:
            """On the reader thread: (source, its chunks, or a failure's line, or None
            when unchanged)."""
            source = source_key(path)
            st = seen[source]
            try:  # size and mtime as recorded: unchanged without reading the file
                doc_hash = (st and stats.known_hash(source, st)) or content_hash(path)
                if not (force is True or source in (force or ())) and known.get(source) == doc_hash:
                    return source, None
                said(source, "reading")
                on_page = lambda d, n, s=source: said(s, "ocr", pages_done=d, pages_total=n)  # noqa: E731
                return source, self._chunk_file(path, doc_hash, on_page)
            except Stopped:
                raise
            except LocalcragError as exc:
                return source, str(exc)
            except Exception as exc:  # an unexpected parser failure is still one line
                return source, f"{path.name}: could not read ({type(exc).__name__}: {exc})"

        def said(source: str, stage: str, **extra: Any) -> None:
            reader.check()  # the ingest has ended: stop this file's parse
            progress(source, stage, **extra)

        pending: list[_Pending] = []
        reader = ReadAhead(files, read, READ_AHEAD)  # bound before its thread starts
        with reader:
            for source, got in reader:
                if got is None:
                    report.unchanged.append(source)
                    progress(source, "unchanged")
                    continue
                if isinstance(got, str):
                    report.failed.append((source, got))
                    progress(source, "failed")
                    continue
                pending.append(got)
                progress(source, "parsed")
                if len(got.chunks) > PART_CHUNKS:
                    big = pending.pop()
                    self._flush(pending, report, progress)
                    self._commit_in_parts(big, report, progress)
                elif sum(len(p.chunks) for p in pending) >= EMBED_BATCH_CHUNKS:
                    self._flush(pending, report, progress)
                elif not reader.ready():  # the next file is still being read: embed meanwhile
                    self._embed_ahead(pending, progress)
        self._flush(pending, report, progress)
        hashes = {**known, **{p.source: p.doc_hash for p in self._committed}}
        for source in report.unchanged + [p.source for p in self._committed]:
            if (st := seen.get(source)) is not None:
                stats.record(source, st, hashes[source])
        for p in self._committed:
            unread.record(p.source, p.warnings)
        self._committed = []
        if prune:
            report.removed = self._prune(roots, known, report)
            for src in report.removed:
                progress(src, "removed")
        self._changed = self._changed or bool(report.indexed or report.removed)
        report.chunks = self.store.count()
        keep = set(known) - set(report.removed) | set(report.indexed)
        self._on_commit.append(lambda: stats.save(keep))  # once the list and seal are written
        self._on_commit.append(lambda: unread.save(keep))
        self._on_commit.append(lambda: overviews.save(keep))
        return report

    def _prune(self, roots: list[Path], known: dict[str, str], report: IngestReport) -> list[str]:
        """Remove indexed files under the given folders that no longer exist. A root that is
        itself missing prunes nothing below it (an unplugged drive or unmounted share looks
        exactly like a deleted folder), except a single indexed file whose folder is still
        there: that file was deleted."""
        folders = [r.resolve() for r in roots if r.is_dir()]
        for r in roots:
            if r.exists():
                continue
            gone = r.resolve()
            if source_key(gone) in known and gone.parent.is_dir():
                folders.append(gone)
            elif any(source_path(s).is_relative_to(gone) for s in known):
                report.warnings.append(
                    (
                        str(r),
                        f"{r} not found: nothing indexed under it was removed "
                        "(reconnect the drive, or `localcrag remove` it to drop its documents)",
                    )
                )
        removed = []
        for src in sorted(known):
            p = source_path(src)
            if any(p.is_relative_to(f) for f in folders) and not p.exists():
                self.store.remove(src)
                removed.append(src)
        return removed


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:  # vanished since the folder walk: reading it reports the error
        return None
