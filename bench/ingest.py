"""Section 1: ingestion throughput against a plain encode and the tutorial baseline.

Per repetition, interleaved: ``Library.ingest`` of the ai-information PDFs into a fresh
LOCALCRAG_HOME (parse, chunk, embed, LanceDB commit, FTS index) with the product's default
embedder (the int8 ONNX copy) and with its torch fp32 backend; a plain encode of the very
chunk texts that ingest produced *with each of the two backends* (``OnnxEmbedder.embed``;
``SentenceTransformer.encode``), so each ingest is compared with the same embedder doing
nothing but encoding (like with like: the overhead of parsing, chunking and storing); and
seed 001's ingestion (bench.baseline), which encodes with sentence-transformers in fp32.
Every side embeds with a model already loaded.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bench import (
    PDFS,
    Row,
    Section,
    Stat,
    TimedEmbedder,
    baseline,
    fmt,
    interleave,
    log,
    quality,
    rates,
    ratio,
    spread,
    temp_home,
)


def _ingest(embedder: Any, pdfs: list[Path]) -> tuple[int, float]:
    """(new chunks, seconds inside embed) of one fresh ingest."""
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    timed = TimedEmbedder(embedder)
    with temp_home("lcbench-ingest-"):
        report = Library(Settings.load(), embedder=timed).ingest(pdfs)
    if report.failed:
        raise RuntimeError(f"ingest failed: {report.failed}")
    return report.new_chunks, timed.seconds


def _without_overviews(go: Any) -> Any:
    """``go`` with each document's overview made as an empty one (ingest/overview.py): the
    same ingest less the overview's cost, measured beside it."""
    from localcrag.ingest import library
    from localcrag.ingest.overview import Overview

    def run() -> None:
        real = library.make_overview
        library.make_overview = lambda source, doc_hash, *_a, **_k: Overview(source, doc_hash)
        try:
            go()
        finally:
            library.make_overview = real

    return run


def run(quick: bool) -> Section:
    from localcrag.ingest.library import Library
    from localcrag.models.embed import SentenceTransformerEmbedder, load_embedder
    from localcrag.settings import Settings

    sec = Section("1. Ingestion")
    pdfs = PDFS[:1] if quick else PDFS  # quick: AI_Information.pdf only (15 pages)
    reps = 3 if quick else 5
    settings = Settings.load()
    model_dir = settings.model_path(settings.models.embedder)
    product = load_embedder(
        model_dir, settings.generation.threads, settings.models.embedder_backend
    )  # `localcrag ingest`
    st = (
        product
        if isinstance(product, SentenceTransformerEmbedder)
        else SentenceTransformerEmbedder(model_dir, threads=settings.generation.threads)
    )
    for e in {id(product): product, id(st): st}.values():
        e.embed(["warm up"])
    with temp_home("lcbench-ingest-"):  # one ingest to get the exact chunk texts it embeds
        lib = Library(Settings.load(), embedder=product)
        lib.ingest(pdfs)
        texts = lib.store.all_texts()
    doc_chars = sum(len(baseline.extract_text_from_pdf(p)) for p in pdfs)
    pages = sum(_pages(p) for p in pdfs)
    tut_chunks = sum(len(baseline.chunk_text(baseline.extract_text_from_pdf(p))) for p in pdfs)
    encode = st.model.encode

    embed_share: dict[str, list[float]] = {
        "ingest": [],
        "ingest_torch": [],
        "ingest_no_overview": [],
    }

    def ingest_with(name: str, emb: Any):
        def go() -> None:
            _, s = _ingest(emb, pdfs)
            embed_share[name].append(s)

        return go

    def encode_torch() -> object:
        return encode(
            texts,
            batch_size=32,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    fns = {
        "ingest": ingest_with("ingest", product),
        "encode": (lambda: product.embed(texts)) if st is not product else encode_torch,
        "tutorial": lambda: [
            baseline.process_document(p, lambda b: encode(b, show_progress_bar=False)) for p in pdfs
        ],
    }
    fns["ingest_no_overview"] = _without_overviews(ingest_with("ingest_no_overview", product))
    if st is not product:
        fns["ingest_torch"] = ingest_with("ingest_torch", st)
        fns["encode_torch"] = encode_torch
    log(f"ingestion: {len(pdfs)} PDF(s), {len(texts)} chunks, {reps} reps x {len(fns)} sides")
    t = interleave(fns, reps)

    labels = {
        "ingest": f"localcrag ingest ({product.name}, {type(product).__name__}: the default)",
        "ingest_torch": f"localcrag ingest, embedder_backend = torch ({st.name}, fp32)",
        "ingest_no_overview": "localcrag ingest without document overviews (the same, less ingest/overview.py)",
        "encode": (
            f"plain encode of the same chunks, same embedder ({type(product).__name__}.embed)"
            if st is not product
            else "plain SentenceTransformer.encode of the same chunks"
        ),
        "encode_torch": "plain SentenceTransformer.encode of the same chunks (torch fp32)",
        "tutorial": "tutorial baseline (seed 001: 1000/200 chars, SimpleVectorStore, torch fp32)",
    }
    chunks = {
        "ingest": len(texts),
        "ingest_torch": len(texts),
        "ingest_no_overview": len(texts),
        "encode": len(texts),
        "encode_torch": len(texts),
        "tutorial": tut_chunks,
    }
    rows = []
    for name, stat in t.items():
        share = embed_share.get(name)
        rows.append(
            Row(
                labels[name],
                {
                    "seconds": spread(stat),
                    "chunks": chunks[name],
                    "chunks/s": fmt(rates(stat, chunks[name]).median, 1),
                    "pages/s": fmt(rates(stat, pages).median, 1),
                    "doc chars/s": fmt(rates(stat, doc_chars).median, 0),
                    "time in embed": f"{100 * sum(share) / sum(stat.samples):.0f}%"
                    if share
                    else "—",
                },
            )
        )
    sec.tables.append(
        (
            f"{len(pdfs)} PDF(s), {pages} pages, {doc_chars:,} characters of document text "
            f"(PyMuPDF); median (min–max) of {reps} interleaved runs",
            rows,
        )
    )
    _targets(sec, t, texts, tut_chunks)
    cost = t["ingest"].median / t["ingest_no_overview"].median
    sec.targets.append(
        (
            "document overviews add ≤ 10% to ingest (in one interleaved run)",
            f"{100 * (cost - 1):+.1f}%",
            cost <= 1.10,
        )
    )
    from bench.report import target_names  # the names so far, then this one's

    sec.data["target_names"] = [*target_names(sec)[:-1], "overview-ingest-cost"]
    fresh = os.environ.get("LCBENCH_FRESH") == "1"
    if st is product:
        sec.notes.append(
            "The embedder runs on torch (no int8 ONNX copy in models/): nothing to compare."
        )
        return sec
    found = [
        (label, quality.cached_evaluate(label, emb, fresh=fresh, compute=not quick))
        for label, emb in (("sentence-transformers fp32", st), ("ONNX int8 (default)", product))
    ]
    if quick and not all(r for _, r in found):
        sec.notes.append(
            "Retrieval quality of the two backends: not cached yet; `make bench` measures it."
        )
        return sec
    q = {label: r[0] for label, r in found}
    when = {r[1] for _, r in found}
    caption = (
        f"Retrieval quality on anthropic-docs ({int(q['ONNX int8 (default)']['questions'])} questions, "
        f"gold docs, pool {quality.K * quality.POOL} chunks)"
    )
    caption += f"; measured {', '.join(sorted(when))} (cached in .bench/quality.json per model and code hash)"
    sec.tables.append((caption, quality.rows(q)))
    d = q["ONNX int8 (default)"]["hybrid_recall"] - q["sentence-transformers fp32"]["hybrid_recall"]
    dv = (
        q["ONNX int8 (default)"]["vector_recall"] - q["sentence-transformers fp32"]["vector_recall"]
    )
    sec.targets.append(
        (
            "ONNX int8 recall@5 within 1 point of fp32 (hybrid; vector)",
            f"{d:+.1f}; {dv:+.1f}",
            d >= -1.0 and dv >= -1.0,
        )
    )
    return sec


def _targets(sec: Section, t: dict[str, Stat], texts: list[str], tut_chunks: int) -> None:
    """Each ratio names both sides; ingest and plain encode always share the embedder."""
    r = ratio(t["encode"], t["ingest"])  # same chunks: chunks/s ratio = inverse time ratio
    backend = "int8 ONNX" if "ingest_torch" in t else "torch fp32"
    sec.targets.append(
        (
            f"ingest ≥ 0.9× a plain encode of the same chunks, same embedder ({backend}; chunks/s)",
            f"{r:.2f}×",
            r >= 0.9,
        )
    )
    if "ingest_torch" in t:
        r = ratio(t["encode_torch"], t["ingest_torch"])
        sec.targets.append(
            (
                '… with `embedder_backend = "torch"`: ingest ≥ 0.9× a plain '
                "SentenceTransformer.encode of the same chunks (both torch fp32)",
                f"{r:.2f}×",
                r >= 0.9,
            )
        )
    r = ratio(t["tutorial"], t["ingest"])  # same documents: doc chars/s ratio = inverse time ratio
    sec.targets.append(
        (
            f"ingest with the default embedder ({backend}) ≥ 2× the tutorial baseline "
            "(torch fp32; document chars/s)",
            f"{r:.2f}×",
            r >= 2,
        )
    )
    if "ingest_torch" in t:
        r = ratio(t["tutorial"], t["ingest_torch"])
        sec.notes.append(
            f"Like for like (both embed with torch fp32), ingest runs at {r:.2f}× the "
            "tutorial's document chars/s: the ≥ 2× above comes from the int8 ONNX "
            "embedder, not from the rest of the ingest path (which also chunks by "
            "sentences, stores in LanceDB and builds the full-text index)."
        )


def _pages(pdf: Path) -> int:
    import pymupdf

    with pymupdf.open(str(pdf)) as d:
        return len(d)
