"""What hybrid search adds to RRF for a question that names things exactly.

* **Exact identifiers win**: a question holding a code, part number, date or ID
  (``textutil.identifiers``) that a passage holds verbatim puts that passage first (more
  identifiers held first, then the fused rank). Without this the full-text hit for
  "item code DOC0123" tied under RRF with an unrelated passage the vectors ranked first
  (bench/identifiers.py: 37 of 200 first before, the holding note first after).
* **A file's name is searched**: a word of the question that is a word of a file's name
  ("TSLA", "TATAGLOBAL" for NSE-TATAGLOBAL11.csv) adds that file's full-text ranking as one
  more list to fuse, so its passages reach the top even when the name is in none of them.

Both apply only to what **identifies**: something held by at most ``MAX_NAMED`` documents.
An acronym the whole library uses ("API", "XML", "2024") or a name word its texts use
throughout ("prompt" in prompt-engineering.md) identifies nothing; boosting it put the
passages that merely mention it first (anthropic-docs hybrid recall@3 / MRR@3 0.770 / 0.885
without either rule, 0.693 / 0.807 with both applied to every match: docs/eval.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

from localcrag.errors import FullTextFailed
from localcrag.ingest.tables import HEADER_LINE, ROW_LINE
from localcrag.textutil import STOPWORDS, holds

_POOL: ThreadPoolExecutor | None = None
MAX_NAMED = 5  # a word naming more documents than this ("report", "notes") names none
_NAME_WORD = re.compile(r"[a-z]{3,}")  # a word of a question or a file name: 3+ letters


@lru_cache(maxsize=4096)  # pure; every hybrid search asks it for each candidate passage's file
def name_words(source: str) -> frozenset[str]:
    """The words of a file's name, lower case, 3+ letters, digits aside ("NSE-TATAGLOBAL11.csv":
    nse, tataglobal)."""
    return frozenset(_NAME_WORD.findall(Path(source).stem.lower()))


class FileNames:
    """Words of the indexed files' names -> the files, rebuilt when the table version changes."""

    def __init__(self) -> None:
        self._version: object = None
        self._by_word: dict[str, set[str]] = {}
        self._in_text: dict[str, bool] = {}  # name word -> does the library's text use it widely

    def named(
        self,
        query: str,
        version: object,
        sources: Callable[[], Iterable[str]],
        in_text: Callable[[str], Iterable[str]] | None = None,
    ) -> list[str]:
        """The documents whose file name ``query`` names: a word of 3+ letters, no stop word,
        equal to a word of the file's name (digits aside), that names at most ``MAX_NAMED``
        files and, where ``in_text`` (word -> the sources of passages holding it) is given,
        is not in the text of more than ``MAX_NAMED`` documents: a word the texts use
        throughout is already searched by the text half and names nothing."""
        words = {w for w in _NAME_WORD.findall(query.lower()) if w not in STOPWORDS}
        if not words:
            return []
        if version != self._version:
            by_word: dict[str, set[str]] = {}
            for source in set(sources()):
                for w in name_words(source):
                    by_word.setdefault(w, set()).add(source)
            self._by_word = {w: s for w, s in by_word.items() if len(s) <= MAX_NAMED}
            self._in_text = {}
            self._version = version
        naming = [w for w in sorted(words) if w in self._by_word]
        if in_text is not None:
            for w in naming:
                if w not in self._in_text:
                    self._in_text[w] = len(set(in_text(w))) > MAX_NAMED
            naming = [w for w in naming if not self._in_text[w]]
        return sorted({s for w in naming for s in self._by_word[w]})


# A table row's column names ("; TOTEMP: 60323") and a header line's ("columns: A | B"), as
# ingest/tables writes them: a code there names a column of every row, not a row.
_COLUMN_NAME = re.compile(r"(?:(?<=: )|(?<=; ))[^:;\n]{1,80}?(?=: )")
# the rest of a row cut at a passage's start: "Elementary; grspan: KK-08; enrltot: 1012; ..."
_CONTINUED = re.compile(r"^(?!.*, row \d+)[^\n]*?(?:; [^:;\n]{1,80}: [^;\n]*){2}")


def values_only(text: str) -> str:
    """``text`` without the column names of its table rows and header lines, so an
    identifier that only names a column ("What does TOTEMP mean?") is not held by every
    row of the table, and the passage that defines it can come first."""
    text = HEADER_LINE.sub(lambda m: m.group(1), text)
    first, nl, rest = text.partition("\n")
    if _CONTINUED.match(first):  # a passage that starts inside a long row: its cells go on
        text = _COLUMN_NAME.sub("", "; " + first)[2:] + nl + rest
    # the row's place (file, page, caption: "Table 3. Arrests: 2009") is kept whole
    return ROW_LINE.sub(lambda m: m.group(1) + _COLUMN_NAME.sub("", ": " + m.group(2))[2:], text)


def held_counts(
    rows: list[dict], ids: list[str], gone: Collection[int], column_only: set[str] | None = None
) -> dict[int, int]:
    """Row id -> how many of the question's identifying identifiers the row holds (> 0):
    the sizes of :func:`held_ids`."""
    return {rid: len(held) for rid, held in held_ids(rows, ids, gone, column_only).items()}


def held_ids(
    rows: list[dict], ids: list[str], gone: Collection[int], column_only: set[str] | None = None
) -> dict[int, set[str]]:
    """Row id -> the question's identifying identifiers the row holds (never empty):
    verbatim in its text (a table row's values, not its column names: ``values_only``), or as
    a word of its file's name ("TATAGLOBAL" is a word of NSE-TATAGLOBAL11.csv). An identifier
    held by more than ``MAX_NAMED`` documents among ``rows`` identifies nothing and is not
    counted ("API" across a library of API docs). ``column_only`` receives the identifiers
    that some of ``rows`` hold only as a table's column name ("What does CRIM mean?"): the
    passage that defines one may lie past a pool those rows filled."""
    holding: dict[int, set[str]] = {}
    docs: dict[str, set[str]] = {i: set() for i in ids}
    for r in rows:
        if r["_rowid"] in gone:
            continue
        name = name_words(r.get("source") or "")
        text = values_only(r["text"])
        for i in ids:
            if holds(text, i) or i.lower() in name:
                holding.setdefault(r["_rowid"], set()).add(i)
                docs[i].add(r.get("source") or str(r["_rowid"]))
            elif column_only is not None and holds(r["text"], i):
                column_only.add(i)  # a column's name here (held as a word elsewhere or not)
    identifying = {i for i in ids if len(docs[i]) <= MAX_NAMED}
    out = {rid: held & identifying for rid, held in holding.items()}
    return {rid: held for rid, held in out.items() if held}


def fuse(
    ranked: list[list[int]],
    held: dict[int, int],
    rrf_k: int,
    scores: Sequence[Sequence[float] | None] = (),
) -> tuple[dict[int, float], list[int]]:
    """RRF over the ranked lists; passages holding identifiers first. (scores, every id in
    order: ties in the order the lists first name them). ``scores``: each list's own scores,
    where known: passages a list scores alike share the rank of the first of them, so the
    fused order does not depend on the order the table stores rows in (a rebuilt index
    answers as the one it replaced)."""
    fused: dict[int, float] = {rid: 0.0 for rid in held}
    for n, rids in enumerate(ranked):
        given = scores[n] if n < len(scores) and scores[n] else None
        rank = 0
        for i, rid in enumerate(rids):
            if not (given is not None and i and given[i] == given[i - 1]):
                rank = i
            fused[rid] = fused.get(rid, 0.0) + 1.0 / (rrf_k + rank + 1)
    return fused, sorted(fused, key=lambda rid: (-held.get(rid, 0), -fused[rid]))


def quiet(future: Future) -> list[dict]:
    """An extra full-text list's rows; its failure is reported by the main list's, not twice."""
    try:
        return future.result()
    except FullTextFailed:
        return []


def workers() -> ThreadPoolExecutor:
    """The threads the full-text lists of a hybrid search run on (beside the vector half)."""
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="localcrag-fts")
    return _POOL
