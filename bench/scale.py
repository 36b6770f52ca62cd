"""Section 13: a 10,000-document library: search at 100k and 1M chunks, start-up,
appends, the re-scan of 10,000 unchanged files, and peak RSS ingesting 1,000 mixed files.

The corpora are synthetic rows grown from real embedded text (bench/scale_corpus.py says how
and why). Queries are real questions embedded with the product's embedder; their exact
float32 top-10 over the whole corpus is computed block by block from the regenerated
vectors. Each search measurement runs in a new process (bench/scale_probe.py) so start-up
time and RSS are the product's own. Questions are split: the anthropic-docs questions tuned
``vectors.CANDIDATES`` (the "tuning" rows), SQuAD + val.json questions are reported.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

from bench import CACHE, DATA, Row, Section, Stat, fmt, log, run_process, scale_designs, scale_files
from bench import scale_corpus as corpus

K = 10


def questions() -> tuple[list[str], list[str]]:
    """(tuning split: anthropic-docs, report split: SQuAD 2.0 sample + val.json)."""
    tune = [
        it["question"]
        for it in json.loads(
            (DATA / "anthropic-docs" / "docs_evaluation_dataset.json").read_text("utf-8")
        )
    ]
    squad = json.loads((DATA / "squad2-dev-subset" / "small.json").read_text("utf-8"))
    qs = [qa["question"] for art in squad["data"] for par in art["paragraphs"] for qa in par["qas"]]
    report = random.Random(15).sample(qs, 50) + [
        v["question"] for v in json.loads((DATA / "ai-information" / "val.json").read_text("utf-8"))
    ]
    return tune, report


def exact_top(n: int, qv: np.ndarray, embedder: object) -> np.ndarray:
    """Row numbers of the exact float32 top-K per query over the n-row corpus."""
    passages, bv = corpus.base(embedder)
    best_s = np.full((len(qv), K), -2.0, np.float32)
    best_i = np.zeros((len(qv), K), np.int64)
    for s in range(0, n, corpus.BLOCK):
        _, v = corpus.synth_block(passages, bv, s, min(corpus.BLOCK, n - s), seed=n)
        sims = qv @ v.T
        idx = np.argpartition(-sims, K - 1, axis=1)[:, :K]
        cand_s = np.concatenate([best_s, np.take_along_axis(sims, idx, 1)], axis=1)
        cand_i = np.concatenate([best_i, idx + s], axis=1)
        keep = np.argsort(-cand_s, axis=1)[:, :K]
        best_s, best_i = np.take_along_axis(cand_s, keep, 1), np.take_along_axis(cand_i, keep, 1)
    return best_i


def query_file(n: int, name: str, texts: list[str], embedder: object) -> Path:
    path = CACHE / "scale" / f"queries-{corpus.VERSION}-{n}-{name}.npz"
    if not path.exists():
        qv = np.asarray(embedder.embed(texts), dtype=np.float32)
        qv /= np.linalg.norm(qv, axis=1, keepdims=True)
        np.savez(path, texts=np.array(texts), vectors=qv, exact=exact_top(n, qv, embedder))
    return path


def probe(folder: Path, n: int, qfile: Path) -> dict:
    p = run_process(
        [sys.executable, "-m", "bench.scale_probe", str(folder), str(n), str(qfile)], timeout=1800
    )
    if p.rc != 0:
        raise RuntimeError(f"scale probe failed: {p.stderr[-600:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _ms(xs: list[float], p: float) -> float:
    return Stat(xs).pct(p) * 1000


def run(quick: bool) -> Section:
    from localcrag.ingest import vectors
    from localcrag.models.embed import load_embedder
    from localcrag.settings import Settings

    sec = Section("13. Scale (10,000 documents)")
    s = Settings.load()
    emb = load_embedder(
        s.model_path(s.models.embedder), s.generation.threads, s.models.embedder_backend
    )
    tune, report = questions()
    if quick:
        tune, report = tune[:12], report[:16]
    sizes = (100_000,) if quick else (100_000, 1_000_000)
    rows, results = [], {}
    for n in sizes:
        store, folder = corpus.table(n, emb)
        cache = folder / "chunks_bench.vcache"
        fresh = not (cache / "manifest.json").exists()
        qfile = query_file(n, "report" if not quick else "report-quick", report, emb)
        log(
            f"scale: {n:,} rows, probe process ({'builds the vector cache' if fresh else 'cache present'})"
        )
        r = probe(folder, n, qfile)
        if fresh:  # the first open ever read every vector: measure a normal start too
            r["first_open_ever_s"] = r["first_search_s"]
            r = {**probe(folder, n, qfile), "first_open_ever_s": r["first_search_s"]}
        results[n] = r
        lat = r["latency_s"]
        rows.append(
            Row(
                f"{n:,} chunks",
                {
                    "hybrid p50 / p95 ms": f"{fmt(_ms(lat['hybrid'], 50), 1)} / {fmt(_ms(lat['hybrid'], 95), 1)}",
                    "vector p50 / p95 ms": f"{fmt(_ms(lat['vector'], 50), 1)} / {fmt(_ms(lat['vector'], 95), 1)}",
                    "full-text p50 / p95 ms": f"{fmt(_ms(lat['text'], 50), 1)} / {fmt(_ms(lat['text'], 95), 1)}",
                    "CPU ms per query p50 (hybrid / vector / text)": " / ".join(
                        fmt(_ms(r["cpu_s_per_query"][m], 50), 1)
                        for m in ("hybrid", "vector", "text")
                    ),
                    "recall@10 vs exact": fmt(r["recall_at_10"], 3),
                    "start → first search s (CPU s)": f"{fmt(r['start_to_search_s'], 2)} ({fmt(r['cpu_s'], 2)})",
                    "search-side RSS MB": fmt(r["rss_search_mb"], 0),
                    "append visible ms": fmt(r["append_visible_s"] * 1000, 0),
                    "delete gone ms": fmt(r["delete_visible_s"] * 1000, 0),
                },
            )
        )
    sec.tables.append(
        (
            f"{len(report)} questions (report split), k={K}, each search mode once per question, "
            f"rotating order; a new process per size (load average {os.getloadavg()[0]:.1f} on "
            f"{os.cpu_count()} cores when the section ended)",
            rows,
        )
    )
    sec.data["probes"] = results
    scoped = {n: scope_probe(n) for n in sizes}
    sec.data["scoped"] = scoped
    sec.tables.append(_scoped_table(scoped))
    _targets(sec, results)
    _scoped_targets(sec, scoped)
    _corpus_note(sec, emb)
    if not quick:
        sec.tables.append(_tuning(emb, tune))
        z = np.load(query_file(1_000_000, "report", report, emb))
        log("scale: the designs tried, side by side at 1M rows")
        sec.tables.append(scale_designs.run(1_000_000, z["vectors"][:30], z["exact"][:30], emb))
    scale_files.run(sec, quick)
    sec.notes.append(
        f"Vector codes: {vectors.CANDIDATES:,} Hamming candidates re-scored in int8, the final "
        "ones re-ranked in float32 read back from Lance by row id. RAM per chunk: 48 B of sign bits + "
        "17 B of row id, key and live flag in RAM; the 384 B of int8 codes stay in the cache file beside "
        "the table and are read (pread, not mapped) for the candidates only."
    )
    return sec


def scope_probe(n: int) -> dict:
    """Scoped search over the n-row table in a fresh process (bench/scope_probe.py)."""
    folder = CACHE / "scale" / f"{corpus.VERSION}-{n}"  # built by corpus.table before
    qfile = CACHE / "scale" / f"queries-{corpus.VERSION}-{n}-report.npz"
    if not qfile.exists():
        qfile = CACHE / "scale" / f"queries-{corpus.VERSION}-{n}-report-quick.npz"
    p = run_process(
        [sys.executable, "-m", "bench.scope_probe", str(folder), str(n), str(qfile)], timeout=1800
    )
    if p.rc != 0:
        raise RuntimeError(f"scope probe failed: {p.stderr[-600:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _scoped_table(scoped: dict) -> tuple[str, list[Row]]:
    rows = []
    for n, r in scoped.items():
        for name, s in r["scopes"].items():
            lat = s["latency_s"]
            rows.append(
                Row(
                    f"{n:,} chunks, {name} ({s['documents']:,})",
                    {
                        "hybrid p50 / p95 ms": f"{fmt(_ms(lat['hybrid'], 50), 1)} / {fmt(_ms(lat['hybrid'], 95), 1)}",
                        "first search in the scope p50 ms": fmt(_ms(lat["hybrid cold"], 50), 1),
                        "vector p50 ms": fmt(_ms(lat["vector"], 50), 1),
                        "recall@10 within the scope": fmt(s["recall_at_10"], 3),
                        "hits outside it": s["hits_outside"],
                    },
                )
            )
    return (
        "Scoped search (`ask --in`): the same questions, each within one document (the one "
        "holding its exact best passage) and within 1% of the documents (that one and others "
        "drawn at random); recall against the exact float32 top-10 of the scope's own rows; "
        "the first search in a scope builds its row filter, later ones reuse it",
        rows,
    )


def _scoped_targets(sec: Section, scoped: dict) -> None:
    if 1_000_000 not in scoped:
        return
    names = sec.data.setdefault("target_names", [])
    for name, s in scoped[1_000_000]["scopes"].items():
        p50 = _ms(s["latency_s"]["hybrid"], 50)
        key = "one" if s["documents"] == 1 else "pct"
        sec.targets += [
            (f"1M, scope of {name}: hybrid p50 ≤ 50 ms", f"{p50:.1f} ms", p50 <= 50),
            (
                f"1M, scope of {name}: recall@10 ≥ 0.95 within it, no hit outside",
                f"{s['recall_at_10']:.3f}, {s['hits_outside']} outside",
                s["recall_at_10"] >= 0.95 and not s["hits_outside"],
            ),
        ]
        names += [f"1m-scope-{key}-p50", f"1m-scope-{key}-recall"]


def _targets(sec: Section, results: dict) -> None:
    r100 = results[100_000]
    h100 = _ms(r100["latency_s"]["hybrid"], 50)
    sec.targets.append(("100k: hybrid p50 ≤ 25 ms", f"{h100:.1f} ms", h100 <= 25))
    names = ["100k-hybrid-p50"]
    if 1_000_000 in results:
        r = results[1_000_000]
        lat = r["latency_s"]
        p50, p95 = _ms(lat["hybrid"], 50), _ms(lat["hybrid"], 95)
        sec.targets += [
            ("1M: hybrid p50 ≤ 40 ms", f"{p50:.1f} ms", p50 <= 40),
            ("1M: hybrid p95 ≤ 100 ms", f"{p95:.1f} ms", p95 <= 100),
            (
                "1M: recall@10 ≥ 0.95 against exact float32 search",
                f"{r['recall_at_10']:.3f}",
                r["recall_at_10"] >= 0.95,
            ),
            (
                "1M: search-side RAM ≤ 600 MB (RSS growth from opening to after the queries)",
                f"{r['rss_search_mb']:.0f} MB",
                r["rss_search_mb"] <= 600,
            ),
            (
                "1M: process start to first search ≤ 3 s",
                f"{r['start_to_search_s']:.2f} s",
                r["start_to_search_s"] <= 3,
            ),
            (
                "1M: one appended document visible ≤ 1 s after its commit, no full reload",
                f"{r['append_visible_s'] * 1000:.0f} ms",
                r["append_visible_s"] <= 1 and r["append_found"],
            ),
        ]
        names += [
            "1m-hybrid-p50",
            "1m-hybrid-p95",
            "1m-recall-at-10",
            "1m-search-ram",
            "1m-start-to-search",
            "1m-append-visible",
        ]
    sec.data["target_names"] = names


def _corpus_note(sec: Section, emb: object) -> None:
    passages, bv = corpus.base(emb)
    _, synth = corpus.synth_block(passages, bv, 0, 20_000, seed=1_000_000)
    st = corpus.stats(bv, synth)
    sec.data["corpus_stats"] = st
    sec.tables.append(
        (
            "Corpus vs its real base (cosine; 4,000-row samples of each)",
            [
                Row(
                    kind,
                    {
                        "random pairs mean": fmt(st[f"{kind}_pair_mean"], 3),
                        "pairs p99": fmt(st[f"{kind}_pair_p99"], 3),
                        "nearest neighbour p10": fmt(st[f"{kind}_nn_p10"], 3),
                        "nn median": fmt(st[f"{kind}_nn_median"], 3),
                        "nn p90": fmt(st[f"{kind}_nn_p90"], 3),
                    },
                )
                for kind in ("real", "synthetic")
            ],
        )
    )
    sec.notes.append(
        f"Corpus: {len(passages):,} real passages (3 sentences of anthropic-docs, the SQuAD articles and "
        "the two PDFs) embedded with the product's embedder; each synthetic row mixes a parent passage's "
        "vector with another's (weight 0.55–0.95 on the parent) plus noise, re-normalised, and its text "
        "is the parent passage with one sentence of the other spliced in (bench/scale_corpus.py)."
    )


def _tuning(emb: object, tune: list[str]) -> tuple[str, list[Row]]:
    """Recall@10 at 1M by candidate count on the tuning split (in-sample for CANDIDATES)."""
    from localcrag.ingest import vectors
    from localcrag.ingest.store import LanceStore
    from localcrag.ingest.vsync import exact_rerank

    n = 1_000_000
    qfile = query_file(n, "tune", tune, emb)
    z = np.load(qfile)
    store = LanceStore(CACHE / "scale" / f"{corpus.VERSION}-{n}", "chunks_bench", corpus.DIM)
    snap = store._ram.snapshot(store.table)
    ids = {}
    rows = []
    for cands in (1024, 2048, 4096, 8192):
        found, t = 0, []
        for v, ex in zip(z["vectors"], z["exact"]):
            a = time.perf_counter()
            top = vectors.top(snap, v, 3 * K, cands)
            t.append(time.perf_counter() - a)
            got = exact_rerank(store.table, top, v, K, ["chunk_id"], corpus.DIM)
            ids = {r["chunk_id"] for r, _ in got}
            found += len(ids & {f"c{j:07d}" for j in ex})
        rows.append(
            Row(
                f"{cands:,} candidates",
                {
                    "recall@10": fmt(found / (K * len(z["vectors"])), 3),
                    "codes p50 ms": fmt(Stat(t).pct(50) * 1000, 1),
                },
            )
        )
    return (
        f"Tuning split ({len(tune)} anthropic-docs questions, in-sample for the choice of "
        f"CANDIDATES = {vectors.CANDIDATES:,}), 1M rows, vector search only",
        rows,
    )
