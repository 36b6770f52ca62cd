"""Retrieval quality of an embedder on anthropic-docs: recall@k and MRR@k over gold docs.

The corpus is written as one Markdown file per documentation chunk (``# heading`` + text,
as ``localcrag eval`` does), ingested with the product's Library (our chunker, LanceDB),
and each of the 100 questions is searched with a pool of ``10 k`` chunks; chunks map
back to their file, the best chunk ranks the file (so a long gold doc counts once).
Used to check that a faster embedder costs less than a point of recall, and to put the
product's hybrid search beside the peer a user would pick: LanceDB's own hybrid query
(``query_type="hybrid"``, its ``RRFReranker``) on the same table, same questions, same
pool and k; with the reranker's default K = 60 and with the product's ``RRF_K``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bench import CACHE, DATA, ROOT, Row, log, temp_home

K = 5
POOL = 10


def _slug(link: str) -> str:
    tail = re.sub(r"^https?://[^/]+/(en/)?(docs/)?", "", link)
    return re.sub(r"[^A-Za-z0-9]+", "-", tail).strip("-").lower()[:120] or "doc"


def materialise(folder: Path) -> tuple[Path, list[tuple[str, set[str]]]]:
    """Write the docs as Markdown files; return (docs dir, [(question, gold stems)])."""
    src = DATA / "anthropic-docs"
    docs = json.loads((src / "anthropic_docs.json").read_text(encoding="utf-8"))
    items = json.loads((src / "docs_evaluation_dataset.json").read_text(encoding="utf-8"))
    out = folder / "docs"
    out.mkdir(parents=True, exist_ok=True)
    by_link: dict[str, str] = {}
    for d in docs:
        uid = _slug(d["chunk_link"])
        while (out / f"{uid}.md").exists():
            uid += "-x"
        (out / f"{uid}.md").write_text(
            f"# {d['chunk_heading']}\n\n{d['text'].strip()}\n", encoding="utf-8"
        )
        by_link[d["chunk_link"]] = uid
    questions = [
        (it["question"], {by_link[c] for c in it["correct_chunks"] if c in by_link}) for it in items
    ]
    return out, questions


def lancedb_hybrid(store: Any, query: str, vector: Any, n: int, rrf_k: int = 60) -> list[str]:
    """The sources of LanceDB's own hybrid query's top ``n`` rows (vector + its full-text
    index, fused by its ``RRFReranker(K=rrf_k)``), on the product's table: the peer."""
    import numpy as np
    from lancedb.rerankers import RRFReranker

    q = (
        store.table.search(query_type="hybrid", vector_column_name="vector", fts_columns="text")
        .vector(np.asarray(vector, dtype=np.float32))
        .text(query)
        .rerank(RRFReranker(K=rrf_k))
        .limit(n)
    )
    return [r["source"] for r in q.to_list()]


PEERS = {"lancedb_hybrid": 60, "lancedb_hybrid_k": None}  # None: the product's RRF_K


def evaluate(embedder: Any, limit: int | None = None) -> dict[str, float]:
    """recall@K and MRR@K for vector and hybrid search with this embedder, and for
    LanceDB's own hybrid query on the same table (:data:`PEERS`)."""
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    with temp_home("lcbench-quality-") as home:
        docs, questions = materialise(home)
        lib = Library(Settings.load(), embedder=embedder)
        lib.ingest([docs])
        questions = questions[:limit] if limit else questions
        from localcrag.ingest.store import RRF_K

        scores: dict[str, list[tuple[float, float]]] = {
            "vector": [],
            "hybrid": [],
            **{p: [] for p in PEERS},
        }
        for q, gold in questions:
            vec = embedder.embed([q])[0]
            for mode in scores:
                if mode in PEERS:
                    sources = lancedb_hybrid(lib.store, q, vec, K * POOL, PEERS[mode] or RRF_K)
                else:
                    sources = [h.chunk.source for h in lib.store.search(q, vec, K * POOL, mode)]
                ranking: list[str] = []
                for source in sources:
                    stem = Path(source).stem
                    if stem not in ranking:
                        ranking.append(stem)
                top = ranking[:K]
                recall = len(gold & set(top)) / len(gold) if gold else 0.0
                mrr = next((1.0 / (i + 1) for i, u in enumerate(top) if u in gold), 0.0)
                scores[mode].append((recall, mrr))
        out = {"chunks": float(lib.count()), "questions": float(len(questions))}
        for mode, s in scores.items():
            out[f"{mode}_recall"] = 100 * sum(r for r, _ in s) / len(s)
            out[f"{mode}_mrr"] = 100 * sum(m for _, m in s) / len(s)
        return out


# Code whose change can change recall: any edit re-computes the cached result.
_SOURCES = (
    "localcrag/ingest/parse.py",
    "localcrag/ingest/pdf.py",
    "localcrag/ingest/markup.py",
    "localcrag/ingest/chunking.py",
    "localcrag/models/embed.py",
    "localcrag/ingest/store.py",
    "localcrag/ingest/library.py",
    "bench/quality.py",
    "localcrag/models/embed_onnx.py",
    "localcrag/ingest/vectors.py",
)


def cached_evaluate(
    name: str, embedder: Any, fresh: bool, compute: bool = True
) -> tuple[dict[str, float], str] | None:
    """``evaluate`` memoised in .bench/quality.json under a key of the embedder's fingerprint
    and the code above (recall is deterministic); ``fresh`` forces a new measurement.
    Returns (result, when it was measured); None when not cached and ``compute`` is off."""
    import hashlib
    import time

    h = hashlib.sha256(embedder.fingerprint().encode())
    for rel in _SOURCES:
        p = ROOT / rel
        h.update(p.read_bytes() if p.exists() else b"-")
    key = f"{name}:{h.hexdigest()[:16]}"
    path = CACHE / "quality.json"
    store = json.loads(path.read_text()) if path.exists() else {}
    if not fresh and key in store:
        return store[key]["result"], store[key]["when"]
    if not compute:
        return None
    log(f"quality: anthropic-docs recall with {name} (a few minutes)")
    result = evaluate(embedder)
    when = time.strftime("%Y-%m-%d %H:%M")
    store = json.loads(path.read_text()) if path.exists() else {}
    store[key] = {"result": result, "when": when}
    path.write_text(json.dumps(store, indent=1))
    return result, when


def rows(results: dict[str, dict[str, float]]) -> list[Row]:
    """One row per embedder, deltas against the first; LanceDB's own hybrid query beside
    the product's when the result has it (results cached before it was measured do not)."""
    from localcrag.ingest.store import RRF_K

    base = next(iter(results.values()))
    out = []
    for name, r in results.items():
        cells: dict[str, object] = {"chunks": int(r["chunks"]), "questions": int(r["questions"])}
        for key, label in (
            ("vector_recall", f"vector recall@{K}"),
            ("vector_mrr", f"vector MRR@{K}"),
            ("hybrid_recall", f"hybrid recall@{K}"),
            ("hybrid_mrr", f"hybrid MRR@{K}"),
            ("lancedb_hybrid_recall", f"LanceDB's own hybrid (RRF K=60) recall@{K}"),
            ("lancedb_hybrid_k_recall", f"LanceDB's own hybrid (RRF K={RRF_K}) recall@{K}"),
        ):
            if key not in r or key not in base:
                continue
            delta = r[key] - base[key]
            cells[label] = f"{r[key]:.1f}" + ("" if r is base else f" ({delta:+.1f})")
        out.append(Row(name, cells))
    return out
