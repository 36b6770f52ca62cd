"""The table's row format: schema, table names, and chunks to and from Arrow rows.

Apart from store.py so the store keeps to storage (writes, reads, search) and the
maintenance code (doctor, compaction) shares the one schema.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from localcrag.types import Chunk


@dataclass(frozen=True)
class SourceInfo:
    source: str
    pages: int
    chunks: int
    indexed_at: float
    doc_hash: str


def table_name(embedder_fp: str, chunk_tokens: int, overlap: int, chunker_version: str) -> str:
    key = f"{embedder_fp}|{chunk_tokens}|{overlap}|{chunker_version}"
    return "chunks_" + hashlib.sha256(key.encode()).hexdigest()[:12]


def quote(value: str) -> str:
    """A SQL string literal for LanceDB filters."""
    return "'" + value.replace("'", "''") + "'"


def row_to_chunk(row: dict) -> Chunk:
    return Chunk(
        chunk_id=row["chunk_id"],
        source=row["source"],
        text=row["text"],
        page_start=int(row["page_start"]),
        page_end=int(row["page_end"]),
        char_start=int(row["char_start"]),
        char_end=int(row["char_end"]),
        heading=row.get("heading") or None,
        n_tokens=int(row.get("n_tokens") or 0),
        locator=row.get("locator") or None,  # absent from tables written before locators
    )


def schema(dim: int):
    import pyarrow as pa

    return pa.schema(
        [
            ("chunk_id", pa.string()),
            ("source", pa.string()),
            ("doc_hash", pa.string()),
            ("text", pa.string()),
            ("page_start", pa.int32()),
            ("page_end", pa.int32()),
            ("char_start", pa.int64()),
            ("char_end", pa.int64()),
            ("heading", pa.string()),
            ("n_tokens", pa.int32()),
            ("doc_pages", pa.int32()),
            ("indexed_at", pa.float64()),
            ("vector", pa.list_(pa.float32(), dim)),
            ("locator", pa.string()),
        ]
    )


def arrow_rows(
    dim: int,
    source: str,
    doc_hash: str,
    pages: int,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    now: float,
):
    """One document's chunks as an Arrow table of the index schema."""
    import pyarrow as pa

    rows = {
        "chunk_id": [c.chunk_id for c in chunks],
        "source": [source] * len(chunks),
        "doc_hash": [doc_hash] * len(chunks),
        "text": [c.text for c in chunks],
        "page_start": [c.page_start for c in chunks],
        "page_end": [c.page_end for c in chunks],
        "char_start": [c.char_start for c in chunks],
        "char_end": [c.char_end for c in chunks],
        "heading": [c.heading or "" for c in chunks],
        "n_tokens": [c.n_tokens for c in chunks],
        "doc_pages": [pages] * len(chunks),
        "indexed_at": [now] * len(chunks),
        "locator": [c.locator for c in chunks],
    }
    v = np.asarray(vectors, dtype=np.float32).reshape(len(chunks), dim)
    norm = np.linalg.norm(v, axis=1, keepdims=True)  # unit length is what reads check: an
    v = np.where(
        np.abs(norm - 1.0) > 1e-4, v / np.maximum(norm, 1e-12), v
    )  # embedder's rows stay as they are
    flat = pa.array(v.reshape(-1))
    vector = pa.FixedSizeListArray.from_arrays(flat, dim)
    table = pa.table(
        {
            **{k: v for k, v in rows.items() if k != "locator"},
            "vector": vector,
            "locator": pa.array(rows["locator"], pa.string()),
        }
    )
    return table.cast(schema(dim))
