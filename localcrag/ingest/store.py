"""The on-disk index: one LanceDB table per index fingerprint.

The table name carries a fingerprint of the embedder and the chunking settings, so a
changed model or chunk size never mixes vectors: it simply opens (and fills) another
table. Each file's chunks carry the file's content hash, so the table itself is the
manifest, and replacing a file's chunks is one ``merge_insert`` commit: a kill at any
moment leaves the previous version of the table readable and complete.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from localcrag.errors import FullTextFailed
from localcrag.ingest import pending, rowsums
from localcrag.ingest.faults import guarded, in_the_way, not_a_folder
from localcrag.ingest.location import IndexLocation, as_location, retry_conflicts
from localcrag.ingest.maintain import ensure_fts, heal_source_index, rebuild_indexes
from localcrag.ingest.names import MAX_NAMED, FileNames, fuse, held_ids, quiet, workers
from localcrag.ingest.rows import (  # noqa: F401 - table_name, SourceInfo: re-exported
    SourceInfo,
    arrow_rows,
    schema,
    table_name,
)
from localcrag.ingest.rows import (
    quote as _quote,
)
from localcrag.ingest.rows import (
    row_to_chunk as _row_to_chunk,
)
from localcrag.ingest.seal import verify as verify_seal
from localcrag.ingest.vcache import VectorCache
from localcrag.ingest.vectors import centroid
from localcrag.ingest.vsync import Moved, RamVectors, exact_rerank, live_rowids, rows_by_id
from localcrag.textutil import holds, identifiers
from localcrag.textutil.labels import split_heading
from localcrag.types import Chunk, Hit

T = TypeVar("T")

os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("RUST_LOG", "error")
os.environ.setdefault("LANCEDB_LOG", "error")

RRF_K = 10  # measured: k=10 beats the customary 60 on anthropic-docs and SQuAD (docs/eval.md)
_COLUMNS = [
    "chunk_id",
    "source",
    "doc_hash",
    "text",
    "page_start",
    "page_end",
    "char_start",
    "char_end",
    "heading",
    "n_tokens",
    "doc_pages",
    "indexed_at",
    "locator",
]
# what a Hit's Chunk needs (each column costs a read): all but the document's own fields
_HIT_COLUMNS = [c for c in _COLUMNS if c not in ("doc_hash", "doc_pages", "indexed_at")]
LOCATOR = "locator"  # the newest column: tables written before it lack it until their next write

ROWID_FILTER = 2_000  # a scope of at most this many rows is filtered by row id (see _hybrid)
ID_POOL = 400  # passages searched for a question's identifiers (checked for holding it verbatim)
# passages that are not rows of a table (sheets and CSVs: locator "rows 2–9", "row 5",
# "sheet Sales, rows 2–14"); prose and plain pages have no locator or another one
NOT_ROWS = (
    "(locator IS NULL OR NOT (locator LIKE 'row %' OR locator LIKE 'rows %' "
    "OR locator LIKE '%, row %' OR locator LIKE '%, rows %'))"
)


class LanceStore:
    """LanceDB on disk: vector search, native full-text search, and RRF hybrid."""

    def __init__(self, path: Path | str | IndexLocation, name: str, dim: int) -> None:
        self.location = as_location(path)  # a folder, or s3://... (ingest/location.py)
        # the folder is created by the first write: reads work in a read-only home
        self.path: Path | str = self.location.folder or self.location.uri
        self.name = name
        self.dim = dim
        self._conn: Any = None  # connecting creates the folder: lazily
        self._table = None
        self._fts_dirty = False
        # on object storage: the table was seen once (listing it costs a request)
        self._seen = False
        self.verify = True  # check the files against the seal on open (ingest/seal.py; doctor: off)
        self.fts_damaged = False  # the seal found the full-text index's files changed
        self.derived_changed: list[str] = []  # derived index files the seal found changed
        # source -> (content hash, digest of its rows) written by this process since the
        # document list was last saved (ingest/rowsums.py)
        self.written: dict[str, tuple[str, str]] = {}
        folder = self.location.folder  # the codes' cache lives beside a local table only
        self._names = FileNames()  # file-name words -> documents, per table version
        self._ram = RamVectors(
            dim, VectorCache(Path(folder) / f"{name}.vcache") if folder else None
        )

    # --- table management --------------------------------------------------------------

    @property
    def _db(self):
        if self._conn is None:
            self._conn = self.location.connect()
        return self._conn

    @property
    def table(self):
        if self._table is None:
            if self.exists():
                if self.verify:  # damage since the last write: one line, never a read
                    verify_seal(self)
                self._table = self._db.open_table(self.name)
                if self.verify and self.location.folder is not None:
                    heal_source_index(self)
            else:
                self._table = self._create()
        return self._table

    def _create(self):  # noqa: ANN202
        """A new table. On object storage ``chunk_id`` is its (unenforced) primary key: Lance then
        detects two writers inserting the same new chunks as a commit conflict (docs/shared-index.md)."""
        if not self.location.remote:
            return self._db.create_table(self.name, schema=schema(self.dim), exist_ok=True)
        s = schema(self.dim)
        s = s.set(0, s.field("chunk_id").with_nullable(False))
        t = self._db.create_table(self.name, schema=s, exist_ok=True)
        if not t.schema.field("chunk_id").metadata:
            retry_conflicts(lambda: t.set_unenforced_primary_key("chunk_id"), t.checkout_latest)
        return t

    def reopen(self) -> None:
        """Forget the table handle: the next use opens the newest version."""
        self._table = None

    def _cols(self, cols: list[str]) -> list[str]:
        """``cols`` less the locator column on an older table (its next write adds it)."""
        return cols if LOCATOR in self.table.schema.names else [c for c in cols if c != LOCATOR]

    def _add_locator(self) -> None:
        if LOCATOR not in self.table.schema.names:
            self.table.add_columns({LOCATOR: "CAST(NULL AS STRING)"})

    def exists(self) -> bool:
        if self.verify:  # an unfinished repair: nothing is read or written until it ends
            pending.refuse(self)
        if self.location.remote:  # a listing on object storage: remember a table once seen
            self._seen = self._seen or self.name in self._db.list_tables().tables
            return self._seen
        if Path(self.path).is_dir() and self.name in self._db.list_tables().tables:
            return True
        if (blocking := in_the_way(self.path, self.name)) is not None:  # never "no index yet"
            raise not_a_folder(blocking)
        return False

    @guarded
    def other_tables(self) -> list[str]:
        """Tables built with another embedder or chunking: reported, never mixed."""
        here = self.location.remote or Path(self.path).is_dir()
        return [t for t in self._db.list_tables().tables if t != self.name] if here else []

    @guarded
    def sources_in(self, table: str) -> list[str]:
        """Documents indexed in another table (another embedder or chunking): for re-indexing."""
        t = self._db.open_table(table)
        n = t.count_rows()
        if n == 0:
            return []
        rows = t.search().select(["source"]).limit(n).to_arrow()["source"].to_pylist()
        return sorted(set(rows))

    @guarded
    def ensure_fts(self, force: bool = False) -> None:
        """Build the full-text index once; later rows are searched unindexed, then merged."""
        ensure_fts(self, force)

    # --- writes -------------------------------------------------------------------------

    def replace_file(
        self, source: str, doc_hash: str, pages: int, chunks: Sequence[Chunk], vectors: np.ndarray
    ) -> None:
        """Insert a file's new chunks and delete its old ones in a single commit."""
        self.replace_files([(source, doc_hash, pages, chunks, vectors)])

    @guarded
    def replace_files(
        self, docs: Sequence[tuple[str, str, int, Sequence[Chunk], np.ndarray]], add: bool = False
    ) -> None:
        """Replace several files' chunks in one commit: whole documents only, and one table
        version per batch rather than per file (every version's manifest lists every
        fragment, so a commit per file grew the index quadratically). ``add``: the chunks
        join the document's rows already there (a part of a document committed in parts)."""
        import pyarrow as pa

        now = time.time()
        self._add_locator()  # before the cast: an older table gains the column first
        rows = pa.concat_tables([arrow_rows(self.dim, *d, now) for d in docs]).cast(
            self.table.schema
        )
        sources = ", ".join(_quote(d[0]) for d in docs)

        def merge() -> Any:
            m = (
                self.table.merge_insert("chunk_id")  # (it retries for 30 s itself)
                .when_matched_update_all()
                .when_not_matched_insert_all()
            )
            if not add:
                m = m.when_not_matched_by_source_delete(f"source IN ({sources})")
            return m.execute(rows)

        retry_conflicts(merge, self.reopen)
        if not add:  # what this commit handed to LanceDB (a document committed in parts
            made = rowsums.digests(rowsums.columns_of(rows))  # gets its digest when finished)
            self.written.update({d[0]: (d[1], made[d[0]]) for d in docs if d[0] in made})
        self._fts_dirty = True

    def chunk_ids(self, source: str, doc_hash: str) -> set[str]:
        """The chunk ids a document has under ``doc_hash`` (the parts of a document whose
        commit in parts was interrupted: ``Library`` resumes after them)."""
        where = f"source = {_quote(source)} AND doc_hash = {_quote(doc_hash)}"
        return set(self.columns(["chunk_id"], where)["chunk_id"])

    def finish_parts(self, source: str, marker: str, doc_hash: str) -> None:
        """A document committed in parts (rows under ``marker``) becomes whole: its other
        rows (the old version) are deleted, then its rows get ``doc_hash``."""
        src = _quote(source)
        retry_conflicts(
            lambda: self.table.delete(f"source = {src} AND doc_hash != {_quote(marker)}"),
            self.reopen,
        )
        retry_conflicts(
            lambda: self.table.update(where=f"source = {src}", values={"doc_hash": doc_hash}),
            self.reopen,
        )
        made = rowsums.digests(self.columns(list(rowsums.COLUMNS), f"source = {src}"))
        if source in made:  # its parts, as committed just now
            self.written[source] = (doc_hash, made[source])
        self._fts_dirty = True

    @guarded
    def remove(self, source: str) -> int:
        if not self.exists():
            return 0
        n = self.table.count_rows(f"source = {_quote(source)}")
        if n:
            retry_conflicts(lambda: self.table.delete(f"source = {_quote(source)}"), self.reopen)
            self._fts_dirty = True
        return n

    @guarded
    def remove_from_other_tables(self, source: str) -> int:
        """Drop a document from the tables of other settings too, so a removed document is
        not offered for re-indexing (nor back in the index when the settings change back)."""
        n = 0
        for name in self.other_tables():
            t = self._db.open_table(name)
            k = t.count_rows(f"source = {_quote(source)}")
            if k:
                t.delete(f"source = {_quote(source)}")
                n += k
        return n

    # --- reads --------------------------------------------------------------------------

    @guarded
    def count(self) -> int:
        return self.table.count_rows() if self.exists() else 0

    def columns(self, cols: list[str], where: str | None = None) -> dict[str, list]:
        """Whole columns of every row, or of the rows ``where`` selects (maintenance, eval):
        one read of the table."""
        n = (self.table.count_rows(where) if where else self.count()) if self.exists() else 0
        if not n:
            return {c: [] for c in cols}
        query = self.table.search().select(cols)
        return (query.where(where) if where else query).limit(n).to_arrow().to_pydict()

    @guarded
    def file_hashes(self) -> dict[str, str]:
        d = self.columns(["source", "doc_hash"])
        return dict(zip(d["source"], d["doc_hash"]))

    @guarded
    def sources(self) -> list[SourceInfo]:
        """One entry per document, aggregated in Arrow (1M chunk rows: no Python loop)."""
        n = self.count()
        if n == 0:
            return []
        t = (
            self.table.search()
            .select(["source", "doc_hash", "doc_pages", "indexed_at"])
            .limit(n)
            .to_arrow()
        )
        g = (
            t.group_by("source")
            .aggregate(
                [
                    ("doc_pages", "max"),
                    ("doc_pages", "count"),
                    ("indexed_at", "max"),
                    ("doc_hash", "max"),
                ]
            )
            .sort_by("source")
        )
        cols = [
            g[c].to_pylist()
            for c in (
                "source",
                "doc_pages_max",
                "doc_pages_count",
                "indexed_at_max",
                "doc_hash_max",
            )
        ]
        return [SourceInfo(s, int(p), int(k), float(at), h) for s, p, k, at, h in zip(*cols)]

    def documents(self, sources: Sequence[str]) -> dict[str, str]:
        """What each of ``sources`` is (its title, authors, date and running header, as its
        first chunk's heading carries it before ``DOCUMENT``; ingest/about), "" where its
        file says nothing: read from one row a document."""
        if not sources or self.count() == 0:
            return {}
        quoted = ", ".join("'" + s.replace("'", "''") + "'" for s in sources)
        rows = (
            self.table.search()
            .where(f"char_start = 0 AND source IN ({quoted})", prefilter=True)
            .select(["source", "heading"])
            .limit(len(sources) * 4)
            .to_arrow()
            .to_pylist()
        )
        out = {s: "" for s in sources}
        for row in rows:
            out[row["source"]] = split_heading(row["heading"])[0]
        return out

    @guarded
    def doc_hash(self, source: str) -> str | None:
        """The content hash the document is indexed with (None: not indexed)."""
        if not self.exists():
            return None
        rows = (
            self.table.search()
            .where(f"source = {_quote(source)}", prefilter=True)
            .select(["doc_hash"])
            .limit(1)
            .to_list()
        )
        return rows[0]["doc_hash"] if rows else None

    @guarded
    def document(self, source: str) -> tuple[list[Chunk], np.ndarray, int]:
        """A document's chunks in reading order, their vectors and its page count."""
        cols = self.columns([*self._cols(_COLUMNS), "vector"], f"source = {_quote(source)}")
        order = sorted(range(len(cols["chunk_id"])), key=lambda i: cols["char_start"][i])
        rows = [{k: cols[k][i] for k in cols} for i in order]
        vectors = np.asarray([r["vector"] for r in rows], dtype=np.float32).reshape(-1, self.dim)
        return (
            [_row_to_chunk(r) for r in rows],
            vectors,
            max((r["doc_pages"] for r in rows), default=0),
        )

    @guarded
    def all_texts(self, at_most: int | None = None) -> list[str]:
        """Every chunk's text, or ``at_most`` evenly spaced ones (statistics from a sample)."""
        n = self.count()
        if at_most is None or n <= at_most:
            return self.columns(["text"])["text"]
        offsets = np.linspace(0, n - 1, at_most).round().astype(int).tolist()
        return self.table.take_offsets(offsets).select(["text"]).to_arrow()["text"].to_pylist()

    @guarded
    def centroid(self) -> np.ndarray | None:
        """The mean of the unit chunk vectors (from the int8 codes)."""
        return centroid(self._ram.snapshot(self.table), self.dim) if self.count() else None

    @guarded
    def get(self, chunk_id: str) -> Chunk | None:
        if not self.exists():
            return None
        rows = (
            self.table.search()
            .where(f"chunk_id = {_quote(chunk_id)}")
            .select(self._cols(_COLUMNS))
            .limit(1)
            .to_list()
        )
        return _row_to_chunk(rows[0]) if rows else None

    def _held_in_context(self, rids: Collection[int], ids: list[str]) -> dict[int, set[str]]:
        """The identifiers each of these passages' documents holds (what the document is, its
        heading's part before ``DOCUMENT``: "State of Iowa Voter Registration Totals;
        7/5/2022 ›"; the identifier search reads passages' text alone), for identifiers that
        at most ``MAX_NAMED`` documents hold so (one that many documents are about
        identifies none)."""
        if not rids:
            return {}
        rows = self._rows(sorted(rids), ["heading", "source"])
        holding: dict[int, list[str]] = {}
        docs: dict[str, set[str]] = {i: set() for i in ids}
        for rid, row in rows.items():
            about = split_heading(row.get("heading"))[0]
            if not about:
                continue
            holding[rid] = [i for i in ids if holds(about, i)]
            for i in holding[rid]:
                docs[i].add(row.get("source") or "")
        named = {i for i in ids if len(docs[i]) <= MAX_NAMED}
        return {rid: got for rid, held in holding.items() if (got := set(held) & named)}

    def _rows(self, rowids: Sequence[int], columns: list[str]) -> dict[int, dict]:
        return rows_by_id(self.table, rowids, self._cols(columns), self.dim)

    def _within(
        self, snap: Any, scope: tuple[str, ...] | None
    ) -> tuple[tuple[np.ndarray, ...] | None, np.ndarray | None]:
        """The vector codes' masks of a scope's rows and those row ids (None: the table)."""
        if scope is None:
            return None, None
        return self._ram.masks(
            snap, scope, lambda: self._healed(lambda: live_rowids(self.table, _in_sources(scope)))
        )

    def _healed(self, read: Callable[[], T]) -> T:
        """A read filtered by source; when it fails (the source index's files lost or
        damaged since the seal) the derived indexes are rebuilt once and the read retried."""
        try:
            return read()
        except Exception as exc:
            if "_indices" not in str(exc) or not rebuild_indexes(self):
                raise  # not the index's files (a data file: the caller's error says so)
            return read()

    def _vector(
        self, vector: np.ndarray, n: int, scope: tuple[str, ...] | None = None
    ) -> list[dict]:
        snap = self._ram.snapshot(self.table)
        approx = self._ram.top(snap, vector, n + max(n, 20), self._within(snap, scope)[0])
        return [
            {**r, "_distance": 1.0 - sim}
            for r, sim in exact_rerank(
                self.table, approx, vector, n, self._cols(_HIT_COLUMNS), self.dim
            )
        ]

    def _fts(
        self,
        query: str,
        n: int,
        columns: list[str],
        sources: Sequence[str] = (),
        healed: bool = False,
        where: str | None = None,
        rows: np.ndarray | None = None,
    ) -> list[dict]:
        """Full-text hits; ``sources`` (or, the same documents, their row ids ``rows``) and
        ``where`` filter before ranking."""
        try:  # (a query of only stop words or symbols gives no hits; it does not raise)
            if self.fts_damaged:
                raise RuntimeError("its files changed after they were written")
            search = self.table.search(query, query_type="fts")
            among = _in_rows(rows) if rows is not None else _in_sources(sources) if sources else ""
            if clause := " AND ".join(w for w in (among, where) if w):
                search = search.where(clause, prefilter=True)
            return search.select(columns).limit(n).to_list()
        # a broken index is an error or a visible fallback, never "no hits"
        except Exception as exc:
            # missing or broken (a full disk, a deleted file): rebuilt once
            if not healed and rebuild_indexes(self):
                # by sources: the rebuilt index is a new version, where row ids may have moved
                return self._fts(query, n, columns, sources, healed=True, where=where)
            first = re.sub(
                r"lance error: |,?\s*/\S*\.(cargo|rs)\S*", "", str(exc).strip().split("\n")[0]
            )
            raise FullTextFailed(
                f"full-text search failed ({first[:160]})",
                "search with --mode vector; to rebuild it, run `localcrag doctor --repair`",
            ) from exc

    def prose_search(
        self,
        query: str,
        k: int,
        withhold: Collection[str] = (),
        within: Collection[str] | None = None,
    ) -> list[Hit]:
        """Full-text hits among passages that are not table rows (a table's codebook, found
        by its columns' names, which every row of the table holds too); ``within``: the
        sources searched (None: all). Raises FullTextFailed as ``search`` does."""
        scope = () if within is None else tuple(sorted(set(within)))
        if not self.exists() or k <= 0 or (within is not None and not scope):
            return []
        drop = frozenset(withhold)
        rows = self._fts(query, k + len(drop), self._cols(_COLUMNS), scope, where=NOT_ROWS)
        kept = [r for r in rows if r["chunk_id"] not in drop][:k]
        return [Hit(_row_to_chunk(r), float(r["_score"]), i) for i, r in enumerate(kept)]

    def _prose_holders(self, ids: list[str], n: int, scope: Sequence[str] = ()) -> list[dict]:
        """The identifier search again, among passages that are not table rows: a code that
        names a column ("What does CRIM mean?") is in every row of its table, whose short rows
        fill the pool before the long passage that defines it. Run only then: the prefilter
        reads every row's locator."""
        try:
            return self._fts(" ".join(ids), n, ["_rowid", "text", "source"], scope, where=NOT_ROWS)
        except FullTextFailed:  # reported by the main list
            return []

    def _text_sources(self, word: str) -> list[str]:
        """The sources of the passages whose text holds ``word`` (the first ``ID_POOL``); a
        failing full-text index is reported by the main list, not here."""
        try:
            return [r["source"] for r in self._fts(word, ID_POOL, ["source"])]
        except FullTextFailed:
            return []

    @guarded
    def search(
        self,
        query: str,
        vector: np.ndarray | None,
        k: int,
        mode: str = "hybrid",
        withhold: Collection[str] = (),
        codes: Collection[str] = (),
        within: Collection[str] | None = None,
    ) -> list[Hit]:
        """Top-k chunks. Hybrid fuses vector and full-text ranks with RRF (k=RRF_K).
        ``withhold``: chunk ids searched as if not indexed, dropped from each ranked list
        before fusion (``localcrag eval --withhold``: on-topic passages without the answer).
        ``codes``: words searched as identifiers besides those the query's form shows (a
        lower-case column name whose meaning is asked: "mealpct"). ``within``: the sources
        searched (a question's scope), filtered before ranking in every half, so k hits
        come from the scope whenever it holds k passages; None searches every document."""
        self.fallback: str | None = None  # set when hybrid search ran on vectors alone, and why
        scope = None if within is None else tuple(sorted(set(within)))
        if not self.exists() or k <= 0 or scope == ():
            return []
        args = (query, vector, k, mode, frozenset(withhold), tuple(codes), scope)
        try:
            return self._search(*args)
        except Moved:  # another thread's write compacted the table mid-search; the snapshot reloads
            return self._search(*args)

    @guarded
    def count_in(self, sources: Collection[str]) -> int:
        """Passages of these documents (a scope's size, for "searched N passages in ...")."""
        if not sources or not self.exists():
            return 0
        where = _in_sources(sorted(set(sources)))
        return int(self._healed(lambda: self.table.count_rows(where)))

    def _search(
        self,
        query: str,
        vector: np.ndarray | None,
        k: int,
        mode: str,
        drop: frozenset[str],
        codes: tuple[str, ...] = (),
        scope: tuple[str, ...] | None = None,
    ) -> list[Hit]:
        n = k + len(drop)  # every withheld chunk may rank above the k kept ones
        if mode == "vector" or (mode == "hybrid" and not query.strip()):
            if vector is None:
                raise ValueError("a vector search needs the question's vector")
            rows = [r for r in self._vector(vector, n, scope) if r["chunk_id"] not in drop][:k]
            return [
                Hit(_row_to_chunk(r), 1.0 - float(r["_distance"]), i) for i, r in enumerate(rows)
            ]
        try:
            self.ensure_fts()  # before any snapshot: it may compact the table, which moves offsets
        except Exception:  # noqa: BLE001 - rows not yet indexed are still searched (flat); a
            pass  # missing or broken index fails in _fts, which says so
        if mode == "text":  # ties in tie_key order, as in the hybrid's text half
            rows = sorted(
                (
                    r
                    for r in self._fts(query, n, self._cols(_COLUMNS), scope or ())
                    if r["chunk_id"] not in drop
                ),
                key=lambda r: (-float(r["_score"]), tie_key(r["chunk_id"])),
            )[:k]
            return [Hit(_row_to_chunk(r), float(r["_score"]), i) for i, r in enumerate(rows)]
        return self._hybrid(query, vector, k, drop, codes, scope)

    def _hybrid(
        self,
        query: str,
        vector: np.ndarray | None,
        k: int,
        drop: frozenset[str] = frozenset(),
        codes: tuple[str, ...] = (),
        scope: tuple[str, ...] | None = None,
    ) -> list[Hit]:
        """RRF over row ids only; full rows are fetched for the k winners alone. The
        full-text half runs on a worker thread while the vector half runs here."""
        pool = max(k * 4, 20)
        snap = self._ram.snapshot(self.table)
        within, scope_rows = self._within(snap, scope)
        # the full-text halves' prefilter: a small scope by its row ids (an id lookup), a
        # large one by its sources (a scan of that column costs less than a long id list)
        among = scope or ()
        by_rows = scope_rows if scope_rows is not None and len(scope_rows) <= ROWID_FILTER else None
        gone = (
            set(live_rowids(self.table, f"chunk_id IN ({', '.join(map(_quote, drop))})").tolist())
            if drop
            else set()
        )
        text_half = workers().submit(
            self._fts, query, pool + len(gone), ["_rowid", "chunk_id"], among, rows=by_rows
        )
        ids = list(dict.fromkeys([*identifiers(query), *codes]))
        # wide: a date's words ("2024", "10") are common; only verbatim holders count
        id_half = (
            workers().submit(
                self._fts,
                " ".join(ids),
                ID_POOL + len(gone),
                ["_rowid", "text", "source"],
                among,
                rows=by_rows,
            )
            if ids
            else None
        )
        named = self._names.named(
            query,
            self.table.version,
            lambda: self.columns(["source"])["source"],
            self._text_sources,
        )
        if scope is not None:  # the files the question names, among those it may search
            inside = set(scope)
            named = [s for s in named if s in inside]
        name_half = (
            workers().submit(
                self._fts, query, pool + len(gone), ["_rowid", "text", "source"], named
            )
            if named
            else None
        )
        ranked: list[list[int]] = []
        scores: list[list[float]] = []  # each list's own scores: tied ones share a rank
        if vector is not None:  # int8 ranks (RRF uses ranks only): no float32 read-back here
            near = [
                (rid, score)
                for rid, score in self._ram.top(snap, vector, pool + len(gone), within)
                if rid not in gone
            ][:pool]
            ranked.append([rid for rid, _ in near])
            scores.append([float(score) for _, score in near])
        try:
            # passages the text search scores alike, in tie_key order (a document's own
            # order): the table's storage order would differ in a rebuilt index
            found = sorted(
                (r for r in text_half.result() if r["_rowid"] not in gone),
                key=lambda r: (-float(r.get("_score", 0.0)), tie_key(r["chunk_id"])),
            )[:pool]
            ranked.append([r["_rowid"] for r in found])
            scores.append([])  # ranked by position: its ties are ordered already
        except FullTextFailed as exc:
            self.fallback = f"vector only: {exc.message}"
        named_rows = quiet(name_half) if name_half else []
        if name_half is not None:  # the file the question names ("TSLA" -> TSLA.csv): its passages
            found = [r for r in named_rows if r["_rowid"] not in gone][:pool]
            ranked.append([r["_rowid"] for r in found])
            scores.append([float(r.get("_score", 0.0)) for r in found])
        id_rows = quiet(id_half) if id_half else []
        column_only: set[str] = set()
        in_text = held_ids(id_rows + named_rows, ids, gone, column_only)
        if column_only and len(id_rows) >= ID_POOL:  # its holders may lie past the pool
            more = self._prose_holders(ids, ID_POOL + len(gone), among)
            in_text = held_ids(id_rows + more + named_rows, ids, gone)  # sets: repeats count once
        # a passage holds an identifier in its context too (a row under its report's date),
        # besides those of its text: a table row holding "VII" under the heading of "3GPP TS
        # 25.101" holds all three that "3GPP TS 25.101 ... band VII" asks
        context = (
            self._held_in_context({rid for rids in ranked for rid in rids} | set(in_text), ids)
            if ids
            else {}
        )
        held = {
            rid: len(in_text.get(rid, set()) | context.get(rid, set()))
            for rid in in_text.keys() | context.keys()
        }
        fused, order = fuse(ranked, held, RRF_K, scores)

        def rank(rid: int) -> tuple[int, float]:
            return -held.get(rid, 0), -fused[rid]

        # the k best, and those tied with the k-th: ties go by chunk id, a passage's own name,
        # never by where the table happens to store it
        top = [r for i, r in enumerate(order) if i < k or (k and rank(r) == rank(order[k - 1]))]
        rows = self._rows(top, _HIT_COLUMNS)
        best = sorted(
            (r for r in top if r in rows), key=lambda r: (rank(r), tie_key(rows[r]["chunk_id"]))
        )
        return [Hit(_row_to_chunk(rows[r]), fused[r], i) for i, r in enumerate(best[:k])]


def tie_key(chunk_id: str) -> tuple[str, str]:
    """How passages scored alike are ordered: by their id past the hash of the file's path
    (the content's hash, then the passage number), so a library answers alike wherever it
    lives; the whole id settles the rest."""
    return chunk_id.partition("-")[2], chunk_id


def _in_rows(rows: np.ndarray) -> str:
    """A filter on these row ids (of the table version they were read from)."""
    return f"_rowid IN ({', '.join(str(int(r)) for r in rows)})"


def _in_sources(sources: Sequence[str]) -> str:
    """A filter on the documents ``sources`` name (a scope)."""
    return f"source IN ({', '.join(map(_quote, sources))})"
