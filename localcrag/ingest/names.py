"""What hybrid search adds to RRF for a question that names things exactly (issue 26 item 2).

* **Exact identifiers win**: a question holding a code, part number, date or ID
  (``textutil.identifiers``) that a passage holds verbatim puts that passage first (more
  identifiers held first, then the fused rank). Without this the full-text hit for
  "item code DOC0123" tied under RRF with an unrelated passage the vectors ranked first
  (bench/identifiers.py: 37 of 200 first before, the holding note first after).
* **A file's name is searched**: a word of the question that is a word of a file's name
  ("TSLA", "TATAGLOBAL" for NSE-TATAGLOBAL11.csv) adds that file's full-text ranking as one
  more list to fuse, so its passages reach the top even when the name is in none of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from localcrag.errors import FullTextFailed
from localcrag.textutil import STOPWORDS, holds

_POOL: ThreadPoolExecutor | None = None
MAX_NAMED = 5  # a word naming more documents than this ("report", "notes") names none


class FileNames:
    """Words of the indexed files' names -> the files, rebuilt when the table version changes."""

    def __init__(self) -> None:
        self._version: object = None
        self._by_word: dict[str, set[str]] = {}

    def named(self, query: str, version: object, sources: Callable[[], Iterable[str]]) -> list[str]:
        """The documents whose file name ``query`` names (a word of 3+ letters, no stop word,
        equal to a word of the file's name, digits aside)."""
        words = {w for w in re.findall(r"[a-z]{3,}", query.lower()) if w not in STOPWORDS}
        if not words:
            return []
        if version != self._version:
            by_word: dict[str, set[str]] = {}
            for source in set(sources()):
                for w in re.findall(r"[a-z]{3,}", Path(source).stem.lower()):
                    by_word.setdefault(w, set()).add(source)
            self._by_word = {w: s for w, s in by_word.items() if len(s) <= MAX_NAMED}
            self._version = version
        return sorted({s for w in words for s in self._by_word.get(w, ())})


# A table row's column names ("; TOTEMP: 60323") and a header line's ("columns: A | B"), as
# ingest/tables writes them: a code there names a column of every row, not a row.
_ROW_LINE = re.compile(r"^.+?, row \d+(?: \(.*?\))?: .*$", re.M)
_COLUMN_NAME = re.compile(r"(?:(?<=: )|(?<=; ))[^:;\n]{1,80}?(?=: )")
_HEADER_LINE = re.compile(r"^(.+?, columns: ).*$", re.M)


def values_only(text: str) -> str:
    """``text`` without the column names of its table rows and header lines, so an
    identifier that only names a column ("What does TOTEMP mean?") is not held by every
    row of the table, and the passage that defines it can come first."""
    text = _HEADER_LINE.sub(lambda m: m.group(1), text)
    return _ROW_LINE.sub(lambda m: _COLUMN_NAME.sub("", m.group(0)), text)


def held_counts(rows: list[dict], ids: list[str], gone: Collection[int]) -> dict[int, int]:
    """Row id -> how many of the question's identifiers the row holds (> 0): verbatim in its
    text (a table row's values, not its column names: ``values_only``), or as a word of its
    file's name when the row has a ``source`` ("TATAGLOBAL" is a word of
    NSE-TATAGLOBAL11.csv)."""
    out: dict[int, int] = {}
    for r in rows:
        name = (
            set(re.findall(r"[a-z]{3,}", Path(r["source"]).stem.lower()))
            if r.get("source")
            else set()
        )
        if r["_rowid"] not in gone and (
            n := sum(holds(values_only(r["text"]), i) or i.lower() in name for i in ids)
        ):
            out[r["_rowid"]] = max(n, out.get(r["_rowid"], 0))
    return out


def fuse(
    ranked: list[list[int]], held: dict[int, int], rrf_k: int, k: int
) -> tuple[dict[int, float], list[int]]:
    """RRF over the ranked lists; passages holding identifiers first. (scores, the top k ids)."""
    fused: dict[int, float] = {rid: 0.0 for rid in held}
    for rids in ranked:
        for rank, rid in enumerate(rids):
            fused[rid] = fused.get(rid, 0.0) + 1.0 / (rrf_k + rank + 1)
    return fused, sorted(fused, key=lambda rid: (-held.get(rid, 0), -fused[rid]))[:k]


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
