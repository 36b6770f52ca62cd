"""The scale section's synthetic corpora (100k and 1M chunks), built from a real base.

Embedding a million chunks with the real embedder would take ~2 h on 2 cores, so:

1. Base: every passage of 3 consecutive sentences (step 2) of the real texts in
   /work/shared/data (anthropic-docs, the SQuAD articles, the two PDFs), embedded with the
   product's embedder. These are real vectors of real text.
2. Synthetic row i: a base "parent" vector mixed with a second base vector
   (weight a ~ U(0.55, 0.95) on the parent) plus Gaussian noise, re-normalised; its text is
   the parent passage with one sentence of the second passage spliced in. So vectors stay
   on the embedder's manifold (the directions real text takes) and texts stay real prose
   with a real vocabulary, yet no two rows are identical.

Why representative: `stats()` compares cosine-similarity distributions of the synthetic
rows with the real base (random pairs, and nearest-neighbour similarity in equal-size
samples); the scale section prints both. Cached under .bench/scale/ (keyed by VERSION and
the embedder name) so a second run only re-opens the tables.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from bench import CACHE, DATA, PDFS, log

VERSION = "s1"
DIM = 384
BLOCK = 50_000  # rows generated and written per step (bounded memory at 1M)


def base_passages() -> list[list[str]]:
    """Real passages (lists of sentences) from the shared data."""
    from localcrag.ingest.parse import parse_document
    from localcrag.textutil import split_sentences

    texts = [
        d["text"]
        for d in json.loads((DATA / "anthropic-docs" / "anthropic_docs.json").read_text("utf-8"))
    ]
    texts += [
        p.read_text("utf-8")
        for p in sorted((DATA / "squad2-dev-subset" / "articles").glob("*.txt"))
    ]
    for pdf in PDFS:
        texts.append("\n".join(p.text for p in parse_document(pdf).pages))
    out: list[list[str]] = []
    for t in texts:
        sents = [" ".join(t[a:b].split()) for a, b in split_sentences(t)]
        sents = [s for s in sents if len(s) > 20]
        out += [sents[i : i + 3] for i in range(0, max(1, len(sents) - 2), 2)]
    return [p for p in out if p]


def base(embedder: object) -> tuple[list[list[str]], np.ndarray]:
    """(passages, their real unit vectors), cached."""
    folder = CACHE / "scale"
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / f"base-{VERSION}-{getattr(embedder, 'name', 'emb')}.npz"
    passages = base_passages()
    if key.exists():
        z = np.load(key)
        if len(z["v"]) == len(passages):
            return passages, z["v"]
    log(f"scale: embedding {len(passages):,} real passages (cached for later runs)")
    v = np.asarray(embedder.embed([" ".join(p) for p in passages]), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    np.savez(key, v=v)
    return passages, v


def synth_block(
    passages: list[list[str]], bv: np.ndarray, start: int, n: int, seed: int
) -> tuple[list[str], np.ndarray]:
    """Rows start..start+n of the synthetic corpus (deterministic per start)."""
    rng = np.random.default_rng([seed, start])
    parent = rng.integers(0, len(bv), n)
    other = rng.integers(0, len(bv), n)
    a = rng.uniform(0.55, 0.95, (n, 1)).astype(np.float32)
    v = a * bv[parent] + (1 - a) * bv[other]
    v += rng.standard_normal((n, DIM), dtype=np.float32) * np.float32(0.25 / np.sqrt(DIM))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    pick = random.Random(seed * 1_000_003 + start)
    texts = []
    for p, o in zip(parent.tolist(), other.tolist()):
        sents = list(passages[p])
        sents.insert(pick.randrange(len(sents) + 1), pick.choice(passages[o]))
        texts.append(" ".join(sents))
    return texts, v


def block_rows(start: int, texts: list[str], v: np.ndarray):
    """Rows start.. of the synthetic table in the index's own schema (``rows.schema``: every
    column the product writes, ``locator`` included, in its order), so a column added there
    cannot make this table disagree with it."""
    import pyarrow as pa

    from localcrag.ingest.rows import schema

    k = len(texts)
    cols = {
        "chunk_id": [f"c{i:07d}" for i in range(start, start + k)],
        "source": [f"/bench/doc{i // 100:05d}.pdf" for i in range(start, start + k)],
        "doc_hash": ["h"] * k,
        "text": texts,
        "page_start": [1] * k,
        "page_end": [1] * k,
        "char_start": [0] * k,
        "char_end": [len(t) for t in texts],
        "heading": [""] * k,
        "n_tokens": [len(t) // 4 for t in texts],
        "doc_pages": [1] * k,
        "indexed_at": [0.0] * k,
        "locator": [None] * k,
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(v.reshape(-1), pa.float32()), DIM),
    }
    sch = schema(DIM)
    return pa.Table.from_pydict({f.name: cols[f.name] for f in sch}, schema=sch)


def table(n: int, embedder: object) -> tuple[object, Path]:
    """A LanceStore of n synthetic rows with its full-text index (cached), and its folder."""
    from localcrag.ingest.maintain import ensure_source_index
    from localcrag.ingest.store import LanceStore

    folder = CACHE / "scale" / f"{VERSION}-{n}"
    store = LanceStore(folder, "chunks_bench", DIM)
    done = folder / "complete"
    if done.exists() and store.exists() and store.count() == n:
        ensure_source_index(store)  # as an ingest's compaction builds it (a table cached before)
        return store, folder
    passages, bv = base(embedder)
    if store.exists():
        store._db.drop_table(store.name)
        store.reopen()
    log(f"scale: writing the {n:,}-row table (cached for later runs)")
    for s in range(0, n, BLOCK):
        k = min(BLOCK, n - s)
        texts, v = synth_block(passages, bv, s, k, seed=n)
        store.table.add(block_rows(s, texts, v))
    log(f"scale: compacting and building the full-text index over {n:,} rows")
    store.table.optimize()
    store.ensure_fts()
    ensure_source_index(store)
    done.write_text("ok\n")
    return store, folder


def stats(bv: np.ndarray, synth: np.ndarray, seed: int = 0) -> dict[str, float]:
    """Cosine distributions: random pairs and nearest neighbours in equal-size samples."""
    rng = np.random.default_rng(seed)
    m = min(len(bv), len(synth), 4000)
    out: dict[str, float] = {}
    for name, x in (
        ("real", bv[rng.choice(len(bv), m, replace=False)]),
        ("synthetic", synth[rng.choice(len(synth), m, replace=False)]),
    ):
        sims = x @ x.T
        np.fill_diagonal(sims, -1)
        nn = sims.max(axis=1)
        iu = np.triu_indices(m, 1)
        pairs = sims[iu]
        out[f"{name}_pair_mean"] = float(pairs.mean())
        out[f"{name}_pair_p99"] = float(np.percentile(pairs, 99))
        out[f"{name}_nn_p10"] = float(np.percentile(nn, 10))
        out[f"{name}_nn_median"] = float(np.median(nn))
        out[f"{name}_nn_p90"] = float(np.percentile(nn, 90))
    return out
