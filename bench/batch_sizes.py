"""Texts per onnxruntime run for the int8 embedder, and how to use the cores (embed_onnx.BATCH).

``python -m bench.batch_sizes [--sizes 1,4,8,16,32] [--reps 5] [--threads N] [--no-quality]``

Not a bench section: run it when the model or the embedder changes, and copy the figures
into the comment above ``embed_onnx.BATCH``. Per batch size, on the bench PDFs' chunks (as
ingest makes them), median of interleaved repetitions:

- speed, two ways: ``OnnxEmbedder.embed`` (a bulk call: single-threaded runs side by side,
  one per core) and the same runs on one session with intra-op threads (how it was);
  wall chunks/s and process CPU seconds (with ``--threads 1`` both ways are one thread
  and the CPU seconds hardly move with the machine's load);
- fidelity: cosine of each chunk vector to the fp32 sentence-transformers one (mean, min);
- retrieval: bench.quality's anthropic-docs recall@5 / MRR@5 (vector, hybrid) with every
  embed call at that batch size (ingest's calls of up to 128 chunks: batch-mates from
  neighbouring files), fp32 the reference row.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from statistics import median
from typing import Any

import numpy as np

from bench import PDFS, log, quality, temp_home


class Batched:
    """The embedder with every call at one batch size (queries too: one text is one run)."""

    def __init__(self, inner: Any, size: int) -> None:
        self.inner, self.size = inner, size

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str], batch_size: int = 0) -> np.ndarray:
        return self.inner.embed(texts, self.size)


def pdf_chunks(embedder: Any) -> list[str]:
    """The bench PDFs' chunk texts, as ingest makes them."""
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    with temp_home("lcbench-batch-"):
        lib = Library(Settings.load(), embedder=embedder)
        lib.ingest(PDFS)
        return lib.store.all_texts()


def one_session(onnx: Any, texts: list[str], size: int) -> np.ndarray:
    """The runs of ``embed`` on one spinning session with intra-op threads (no streams)."""
    encs = onnx._cut.encode_batch(texts, add_special_tokens=True)
    order = sorted(range(len(texts)), key=lambda i: (-len(encs[i].ids), i))
    out = np.zeros((len(texts), onnx.dim), np.float32)
    sess = onnx._session(True)
    for a in range(0, len(order), size):
        idx = order[a : a + size]
        out[idx] = onnx._run(sess, [encs[i].ids for i in idx])
    return out


def speed(
    fns: dict[str, Callable[[], object]], reps: int
) -> dict[str, tuple[list[float], list[float]]]:
    """(wall, CPU) seconds per function, interleaved with the order rotating."""
    names = list(fns)
    got: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in names}
    for r in range(reps):
        for n in names[r % len(names) :] + names[: r % len(names)]:
            w, c = time.perf_counter(), time.process_time()
            fns[n]()
            got[n][0].append(time.perf_counter() - w)
            got[n][1].append(time.process_time() - c)
    return got


def main(argv: Sequence[str] | None = None) -> None:
    from localcrag.models.embed import SentenceTransformerEmbedder, load_embedder
    from localcrag.settings import Settings

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--sizes", default="1,4,8,16,32")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument(
        "--threads", type=int, default=0, help="onnxruntime threads / streams (default: the cores)"
    )
    ap.add_argument("--no-quality", action="store_true")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    settings = Settings.load()
    folder = settings.model_path(settings.models.embedder)
    onnx = load_embedder(folder, args.threads, "onnx")
    st = SentenceTransformerEmbedder(folder, threads=settings.generation.threads)
    texts = pdf_chunks(onnx)
    ref = st.embed(texts)
    fns: dict[str, Callable[[], object]] = {}
    for s in sizes:
        fns[f"streams ({onnx.streams()}), batch {s}"] = lambda s=s: onnx.embed(texts, s)
        fns[f"one session, batch {s}"] = lambda s=s: one_session(onnx, texts, s)
    for f in fns.values():
        f()  # warm up
    log(f"{len(texts)} chunks, sizes {sizes}, {args.reps} reps, threads {args.threads or 'all'}")
    got = speed(fns, args.reps)
    n = len(texts)
    print("| how | chunks/s (median, min-max) | CPU s (median) |\n|---|---|---|")
    for name, (wall, cpu) in got.items():
        print(
            f"| {name} | {n / median(wall):.0f} ({n / max(wall):.0f}-{n / min(wall):.0f}) | {median(cpu):.2f} |"
        )
    print(
        "\n| batch | cosine to fp32: mean | min | same bits as batch 1, streams vs one session |\n|---|---|---|---|"
    )
    alone = onnx.embed(texts, 1)
    for s in sizes:
        v = onnx.embed(texts, s)
        cos = (v * ref).sum(1)
        same = np.array_equal(v, one_session(onnx, texts, s))
        print(
            f"| {s} | {cos.mean():.5f} | {cos.min():.4f} | {np.array_equal(v, alone)}, {same} |",
            flush=True,
        )
    if args.no_quality:
        return
    print(
        "\n| embedder | vector recall@5 | hybrid recall@5 | vector MRR@5 | hybrid MRR@5 |\n|---|---|---|---|---|"
    )
    for name, emb in [("sentence-transformers fp32", st)] + [
        (f"int8 ONNX, batch {s}", Batched(onnx, s)) for s in sizes
    ]:
        r = quality.evaluate(emb)
        print(
            f"| {name} | {r['vector_recall']:.1f} | {r['hybrid_recall']:.1f} | "
            f"{r['vector_mrr']:.1f} | {r['hybrid_mrr']:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
