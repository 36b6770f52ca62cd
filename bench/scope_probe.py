"""Scoped search at scale in a fresh process (``python -m bench.scope_probe FOLDER N
QUERIES.npz``): for each question, a scope of one document (the one holding its exact best
passage) and one of 1% of the documents (that one and others drawn at random), hybrid and
vector search within it: latency the first time a scope is searched (its row filter is
built) and again (a conversation keeps its scope), recall@10 of the vector search against
the exact float32 top-10 within the scope, and any hit outside it. Prints one JSON line."""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

ROWS_PER_DOC = 100  # bench/scale_corpus: /bench/docNNNNN.pdf holds rows 100*N .. 100*N+99


def main() -> None:
    import numpy as np

    from localcrag.ingest.store import LanceStore

    folder, n, qfile = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    z = np.load(qfile, allow_pickle=False)
    texts, qv, exact = [str(t) for t in z["texts"]], z["vectors"], z["exact"]
    store = LanceStore(folder, "chunks_bench", qv.shape[1])
    store.search(texts[0], qv[0], 5, "hybrid")  # opened and warm, as after the first question
    docs = n // ROWS_PER_DOC
    out: dict = {"n": n, "docs": docs, "scopes": {}}
    for name, size in (("one document", 1), ("1% of documents", max(1, docs // 100))):
        lat: dict[str, list[float]] = {"hybrid cold": [], "hybrid": [], "vector": []}
        found = outside = 0
        for i, (q, v) in enumerate(zip(texts, qv)):
            home = int(exact[i][0]) // ROWS_PER_DOC
            rng = random.Random(i)
            picked = {home, *rng.sample(range(docs), size - 1)} if size > 1 else {home}
            scope = [f"/bench/doc{d:05d}.pdf" for d in sorted(picked)]
            t = time.perf_counter()
            store.search(q, v, 10, "hybrid", within=scope)
            lat["hybrid cold"].append(time.perf_counter() - t)
            t = time.perf_counter()
            hits = store.search(q, v, 10, "hybrid", within=scope)
            lat["hybrid"].append(time.perf_counter() - t)
            t = time.perf_counter()
            vec_hits = store.search(q, v, 10, "vector", within=scope)
            lat["vector"].append(time.perf_counter() - t)
            inside = set(scope)
            outside += sum(h.chunk.source not in inside for h in hits + vec_hits)
            cols = store.columns(
                ["chunk_id", "vector"], " OR ".join(f"source = '{s}'" for s in scope)
            )
            m = np.asarray(cols["vector"], dtype=np.float32)
            m /= np.linalg.norm(m, axis=1, keepdims=True)
            best = {cols["chunk_id"][j] for j in np.argsort(-(m @ v))[:10]}
            found += len(best & {h.chunk.chunk_id for h in vec_hits})
        out["scopes"][name] = {
            "documents": size,
            "latency_s": lat,
            "recall_at_10": found / (10 * len(texts)),
            "hits_outside": outside,
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
