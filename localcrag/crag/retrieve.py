"""Retrieval stage: question -> top-k chunks (hybrid by default)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from functools import partial
from pathlib import PurePath

from localcrag.crag.answer.codebook import (
    QUERY_COLUMNS,
    STEM_CHARS,
    columns,
    documents,
    is_codebook,
)
from localcrag.crag.answer.glossary import asked_term
from localcrag.errors import EmptyIndex, FullTextFailed
from localcrag.ingest.library import Library, Searchable
from localcrag.settings import Settings
from localcrag.textutil.places import code_as_cell, regions_named
from localcrag.types import Hit, Scope

CODEBOOK_SEARCH = 5  # full-text hits read for a table's codebook
CELL_CODE_HITS = 5  # full-text hits read for a region's code written as a table's cell


class Retriever:
    """Embeds the question and searches the library's table."""

    def __init__(self, settings: Settings, library: Searchable | None = None) -> None:
        self.settings = settings
        self.library: Searchable = library or Library(settings)
        self.fallback: str | None = None  # why the last search ran degraded (said, never silent)

    def check_ready(self) -> None:
        """An empty index is a user error with a fix, not an empty answer."""
        store = self.library.store
        if store.count() == 0:
            others = store.other_tables()
            if others:
                raise EmptyIndex(
                    "the index was built with a different embedder or chunking settings",
                    "run `localcrag reindex` to re-embed your documents with the current ones",
                )
            raise EmptyIndex("no documents indexed yet", "add some first: localcrag ingest PATH")

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: str | None = None,
        withhold: Collection[str] = (),
        scope: Scope | None = None,
    ) -> list[Hit]:
        """Top-k distinct chunks; ``withhold`` = chunk ids searched as if not indexed (eval);
        ``scope``: only its documents are searched (None: all)."""
        self.check_ready()
        k = k or self.settings.retrieval.top_k
        mode = mode or self.settings.retrieval.retrieval_mode
        vector = None if mode == "text" else self.library.embedder.embed([query])[0]
        # a one-word term whose meaning is asked is searched as a code ("mealpct"): the rows
        # that name it as a column would otherwise fill the list before its definition
        term = asked_term(query)
        codes: tuple[str, ...] = (term,) if term and " " not in term else ()
        words = query if mode == "vector" else self._coded(query)
        within = scope.sources if scope is not None else None
        hits = self.library.store.search(words, vector, 2 * k, mode, withhold, codes, within)
        self.fallback = self.library.store.fallback
        return distinct(hits, k)

    def codebooks(
        self, hits: list[Hit], withhold: Collection[str] = (), scope: Scope | None = None
    ) -> list[Hit]:
        """The codebook of each table whose rows are among ``hits`` and not among them yet
        (crag/answer/codebook): the passage of another file, no table itself, that defines
        the table's columns, found by a full-text search for their names; and the data
        file's documentation, found by a search for the file's name. A question asks in the
        codebook's words; the row answers only read with them."""
        tables: dict[str, list[str]] = {}
        for h in hits:
            if cols := columns(h.chunk.text):
                tables.setdefault(h.chunk.source, []).extend(cols)
        have = {h.chunk.chunk_id for h in hits}
        within = scope.sources if scope is not None else None
        out: list[Hit] = []

        def add(query: str, source: str, fits: Callable[[str], bool]) -> None:
            """The first prose hit for ``query`` of another file that ``fits``, added."""
            top = self.library.store.prose_search(query, CODEBOOK_SEARCH, withhold, within)
            found = next(
                (
                    h
                    for h in top
                    if h.chunk.source != source
                    and h.chunk.chunk_id not in have
                    and fits(h.chunk.text)
                ),
                None,
            )
            if found is not None:
                have.add(found.chunk.chunk_id)
                out.append(replace(found, rank=len(hits) + len(out)))

        for source, found in tables.items():
            names = list(dict.fromkeys(found))[:QUERY_COLUMNS]
            stem = PurePath(source).stem
            try:
                add(" ".join(names), source, partial(is_codebook, names=names))
                if len(stem) >= STEM_CHARS and not any(
                    h.chunk.source != source and documents(h.chunk.text, source) for h in hits
                ):  # the data file's documentation: what the whole table holds
                    add(stem, source, partial(documents, source=source))
            except FullTextFailed:  # the main search said so already
                return out
        return out

    def _coded(self, query: str) -> str:
        """The query's words, and the code of each region it names that no passage names in
        words (a table of states says "TX", never "Texas"), or that a table of the library
        writes as a cell ("STATE: CA" in a library whose prose also says "California",
        which would otherwise fill the evidence before the table's row). A name the library
        holds in words and no table codes is searched as it is, without a two-letter word
        that matches unrelated passages."""
        codes: list[str] = []
        asked = query.split()
        for name, of_name in regions_named(query):
            try:
                top = self.library.store.search(name, None, 1, "text")
                if not (top and name.lower() in " ".join(top[0].chunk.text.lower().split())):
                    codes += sorted(of_name)
                    continue
                for code in sorted(of_name):
                    cells = self.library.store.search(code, None, CELL_CODE_HITS, "text")
                    if code not in asked and any(code_as_cell(code, h.chunk.text) for h in cells):
                        codes.append(code)
            except FullTextFailed:  # the main search says so, or runs on vectors alone
                return query
        return " ".join([query, *dict.fromkeys(codes)])


def distinct(hits: list[Hit], k: int) -> list[Hit]:
    """The first k hits with different text: a document indexed twice (a copy under another
    name) must not fill the evidence with the same passage."""
    seen: set[str] = set()
    out: list[Hit] = []
    for h in hits:
        key = " ".join(h.chunk.text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        out.append(replace(h, rank=len(out)))
        if len(out) == k:
            break
    return out
