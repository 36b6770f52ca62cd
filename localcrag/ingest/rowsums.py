"""What each document's rows held when they were written: a digest per document.

The seal (ingest/seal.py) catches any byte changed in the table's files, but it can be lost
with the damage it would have shown; then bit rot that keeps a data file readable (a flipped
letter in a passage) would be sealed again by a repair and served as if the document said it.
So every write records, beside the table in ``<table>.rowsums.json``, a digest of each
document's rows as they were handed to LanceDB (chunk ids, text, heading, pages, locator),
with the document's content hash. ``doctor`` recomputes the digests from the rows it reads and
names documents that differ; the repair re-indexes them from their files before it seals.

The file is also a second copy of the document list (source -> content hash): a repair that
finds the list lost still knows which documents it must bring back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from localcrag.ingest import sidecar

# the columns a user reads (a quote, its heading, its page and place): what the digest covers
COLUMNS = ("chunk_id", "source", "text", "heading", "page_start", "page_end", "locator")


def path(store: Any) -> Path | None:
    folder = store.location.folder
    return Path(folder) / f"{store.name}.rowsums.json" if folder is not None else None


def digests(rows: Mapping[str, list]) -> dict[str, str]:
    """One digest per source over its rows (``rows``: column name -> values, any row order;
    a table written before the locator column counts its locator as empty)."""
    n = len(rows["chunk_id"])
    locator = rows.get("locator") or [None] * n
    per: dict[str, list[tuple]] = {}
    for i in range(n):
        per.setdefault(rows["source"][i], []).append(
            (
                rows["chunk_id"][i],
                rows["text"][i] or "",
                rows["heading"][i] or "",
                int(rows["page_start"][i] or 0),
                int(rows["page_end"][i] or 0),
                locator[i] or "",
            )
        )
    out = {}
    for source, items in per.items():
        h = hashlib.blake2b(digest_size=16)
        for item in sorted(items):
            h.update(repr(item).encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        out[source] = h.hexdigest()
    return out


def read(store: Any) -> dict[str, tuple[str, str]] | None:
    """source -> (content hash, digest) as last saved; None when missing or damaged."""
    body, _state = sidecar.read(path(store))
    if not isinstance(body, dict) or not isinstance(body.get("documents"), dict):
        return None
    out = {}
    for src, rec in body["documents"].items():
        if isinstance(rec, list) and len(rec) == 2 and all(isinstance(x, str) for x in rec):
            out[str(src)] = (rec[0], rec[1])
    return out


def save(store: Any, documents: Mapping[str, str], written: Mapping[str, tuple[str, str]]) -> None:
    """Record the digests of ``documents`` (source -> content hash, the table's list now):
    those this process wrote (``written``), else the recorded ones whose content hash still
    matches. A document with neither stays unrecorded (a table from before digests): a repair
    that cannot trust the seal re-indexes it from its file rather than vouch for its rows."""
    where = path(store)
    if where is None:
        return
    old = read(store) or {}
    keep: dict[str, list[str]] = {}
    for src, doc_hash in documents.items():
        rec = written.get(src) or old.get(src)
        if rec is not None and rec[0] == doc_hash:
            keep[src] = [rec[0], rec[1]]
    sidecar.write(where, {"documents": keep})


def differing(
    recorded: Mapping[str, tuple[str, str]] | None,
    rows: Mapping[str, list],
    hashes: Mapping[str, str],
) -> tuple[list[str], list[str]]:
    """(documents whose rows differ from their recorded digest, documents with no digest
    recorded for their content hash) among the sources of ``rows``; ``hashes``: source ->
    content hash in the table."""
    now = digests(rows)
    recorded = recorded or {}
    bad, unknown = [], []
    for src, digest in now.items():
        rec = recorded.get(src)
        if rec is None or rec[0] != hashes.get(src):
            unknown.append(src)
        elif rec[1] != digest:
            bad.append(src)
    return sorted(bad), sorted(unknown)


def sources(recorded: Mapping[str, tuple[str, str]] | None) -> dict[str, str]:
    """The document list kept in the digests file (source -> content hash)."""
    return {s: rec[0] for s, rec in (recorded or {}).items()}


def columns_of(table: Any, names: Iterable[str] = COLUMNS) -> dict[str, list]:
    """The digest's columns of an Arrow table (a missing locator column read as empty)."""
    have = set(table.column_names)
    n = table.num_rows
    return {c: table[c].to_pylist() if c in have else [None] * n for c in names}
