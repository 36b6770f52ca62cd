"""How many chunks per onnxruntime run ingest should use (``embed_onnx.INGEST_BATCH``).

``python -m bench.batch_sizes [--sizes 1,4,8,16,32] [--reps 5] [--no-quality]``

Not a bench section: run it when the model or the ingest path changes, and copy the
figures into ``embed_onnx.INGEST_BATCH``'s comment. Per batch size, on the int8 ONNX model:

- speed: chunks/s of ``OnnxEmbedder.embed_groups`` over the bench PDFs' chunks, one group
  per PDF as ingest makes them (median of interleaved repetitions, each size in turn);
- fidelity: cosine of each of those chunk vectors to the fp32 sentence-transformers one
  (mean and minimum);
- retrieval: bench.quality's anthropic-docs recall@5 (vector, hybrid) with that batch size,
  as ingest groups it (one group per file: ~7 chunks each, so batches are rarely full), and
  "pooled": every chunk in one group, so each batch is full (a long document's case);
  fp32 is the reference row.
"""

from __future__ import annotations

import argparse
from typing import Any, Sequence

import numpy as np

from bench import PDFS, interleave, log, quality, temp_home


class Pooled:
    """The embedder with every ingest call's groups merged into one: full batches throughout."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_groups(self, groups: Sequence[Sequence[str]]) -> np.ndarray:
        return self.inner.embed_groups([[t for g in groups for t in g]])


def pdf_groups(embedder: Any) -> list[list[str]]:
    """The groups of chunk texts that ingest of the bench PDFs embeds (recorded), in order."""
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    seen: list[list[str]] = []

    class Recording(Pooled):
        def embed_groups(self, groups: Sequence[Sequence[str]]) -> np.ndarray:
            seen.extend(list(g) for g in groups)
            return self.inner.embed_groups(groups)

    with temp_home("lcbench-batch-"):
        Library(Settings.load(), embedder=Recording(embedder)).ingest(PDFS)
    return seen


def main(argv: Sequence[str] | None = None) -> None:
    from localcrag.ingest.embed import SentenceTransformerEmbedder, load_embedder
    from localcrag.settings import Settings

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1,4,8,16,32")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-quality", action="store_true")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    settings = Settings.load()
    folder = settings.model_path(settings.embedder)
    onnx = load_embedder(folder, settings.threads, "onnx")
    st = SentenceTransformerEmbedder(folder, threads=settings.threads)
    groups = pdf_groups(onnx)
    texts = [t for g in groups for t in g]
    ref = st.embed(texts)
    onnx.embed_groups(groups)  # warm up
    log(f"batch sizes {sizes}: {len(texts)} chunks in {len(groups)} group(s), {args.reps} reps")
    t = interleave({s: (lambda s=s: onnx.embed_groups(groups, s)) for s in sizes}, args.reps)
    print("| batch | chunks/s (median, min-max) | cosine to fp32: mean | min |")
    print("|---|---|---|---|")
    for s in sizes:
        cos = (onnx.embed_groups(groups, s) * ref).sum(1)
        st_ = t[s]
        print(f"| {s} | {len(texts) / st_.median:.0f} ({len(texts) / st_.hi:.0f}-{len(texts) / st_.lo:.0f}) "
              f"| {cos.mean():.5f} | {cos.min():.4f} |", flush=True)
    if args.no_quality:
        return
    print("\n| embedder | grouping | vector recall@5 | hybrid recall@5 | vector MRR@5 | hybrid MRR@5 |")
    print("|---|---|---|---|---|---|")

    def show(name: str, grouping: str, r: dict[str, float]) -> None:
        print(f"| {name} | {grouping} | {r['vector_recall']:.1f} | {r['hybrid_recall']:.1f} | "
              f"{r['vector_mrr']:.1f} | {r['hybrid_mrr']:.1f} |", flush=True)

    show("sentence-transformers fp32", "-", quality.evaluate(st))
    for s in sizes:
        onnx.ingest_batch = s
        show(f"int8 ONNX, batch {s}", "per file", quality.evaluate(onnx))
        if s > 1:
            show(f"int8 ONNX, batch {s}", "pooled", quality.evaluate(Pooled(onnx)))


if __name__ == "__main__":
    main()
