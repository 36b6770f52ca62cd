"""Where the time of two missed performance targets goes (docs/performance.md, "Targets
missed"): OCR's CPU a page by stage, and a 1M-row hybrid search's time by stage.

    python scripts/perf_profile.py ocr       # bench section 12's scan: CPU a page by stage
    python scripts/perf_profile.py search    # bench section 13's 1M table (built by
                                             # `python -m bench --only scale`) by stage

``ocr``: the 15-page image-only copy of AI_Information.pdf that section 12 builds, parsed as
an ingest parses it (bounded heap, default ``ocr_dpi``); process CPU seconds a page in the
detector's and the recogniser's ONNX runs (told apart by their input: recogniser lines
are 48 px high), in the whole detection step, and outside recognition; runs and megapixels
of input a page.

``search``: section 13's 60 report-split questions (vectors from its query file), hybrid,
k = 10, three passes in one process, the first reported apart (each question new to the
process); wall and thread-CPU ms a query in the candidate scan (sign bits, then int8
codes), the full-text halves (LanceDB's Rust threads do their work: their thread CPU here
is only the Python side) and the reads of the winners' rows. Section 13's own probe
(``python -m bench.scale_probe``) gives the section's figures for one pass.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _timed(owner: Any, name: str, add: Callable[[float, float], None]) -> None:
    """Wrap ``owner.name`` so each call adds its (wall, thread CPU) seconds."""
    f = getattr(owner, name)

    def g(*a: Any, **k: Any) -> Any:
        w, c = time.perf_counter(), time.thread_time()
        try:
            return f(*a, **k)
        finally:
            add(time.perf_counter() - w, time.thread_time() - c)

    setattr(owner, name, g)


def ocr() -> None:
    from rapidocr.inference_engine.onnxruntime.main import OrtInferSession

    from bench.ocr import SOURCE, image_only_pdf
    from localcrag.ingest import ocr as ocr_mod
    from localcrag.ingest.context import ReadContext
    from localcrag.ingest.heap import bound_heap
    from localcrag.ingest.parse import parse_document
    from localcrag.settings import Settings

    bound_heap()
    ocr_mod._tune_sessions()
    cpu: dict[str, float] = defaultdict(float)
    runs: dict[str, int] = defaultdict(int)
    pixels: dict[str, int] = defaultdict(int)
    run = OrtInferSession.__call__

    def timed_run(self: Any, x: np.ndarray) -> np.ndarray:
        t = time.process_time()
        try:
            return run(self, x)
        finally:
            kind = "recogniser" if x.shape[2] == 48 else "detector"
            cpu[f"{kind} ONNX runs"] += time.process_time() - t
            runs[kind] += 1
            pixels[kind] += x.shape[2] * x.shape[3]

    OrtInferSession.__call__ = timed_run  # type: ignore[method-assign]
    whole = "OCR in all (detection, recognition, layout)"
    for name, key in (
        ("detect", "detection (ONNX and its pre/post-processing)"),
        ("recognise", whole),
    ):
        f = getattr(ocr_mod, name)

        def g(*a: Any, _f: Any = f, _key: str = key, **k: Any) -> Any:
            t = time.process_time()
            try:
                return _f(*a, **k)
            finally:
                cpu[_key] += time.process_time() - t

        setattr(ocr_mod, name, g)
    with tempfile.TemporaryDirectory() as d:
        scan = image_only_pdf(SOURCE, Path(d) / "scan.pdf")
        t, w = time.process_time(), time.perf_counter()
        parse_document(scan, ctx=ReadContext.from_settings(Settings.load()))
        total, wall = time.process_time() - t, time.perf_counter() - w
        import pymupdf

        with pymupdf.open(scan) as pdf:
            n = pdf.page_count
    print(f"{n} pages: {total / n:.2f} CPU s a page ({wall / n:.2f} s wall)")
    for key, v in sorted(cpu.items(), key=lambda kv: -kv[1]):
        print(f"  {key:48s} {v / n:5.2f} s a page  {100 * v / total:5.1f}%")
    print(
        f"  {'outside OCR (rendering, parsing, chunking)':48s} "
        f"{(total - cpu[whole]) / n:5.2f} s a page"
    )
    for kind in runs:
        print(
            f"  {kind}: {runs[kind] / n:.1f} runs a page, {pixels[kind] / n / 1e6:.2f} "
            "megapixels of input a page"
        )


def search() -> None:
    from bench import CACHE
    from bench.scale_corpus import VERSION
    from localcrag.ingest import store as store_mod
    from localcrag.ingest.store import LanceStore

    n = 1_000_000
    folder = CACHE / "scale" / f"{VERSION}-{n}"
    qfile = CACHE / "scale" / f"queries-{VERSION}-{n}-report.npz"
    if not folder.exists() or not qfile.exists():
        sys.exit(f"{folder} or {qfile} missing: run `python -m bench --only scale` first")
    z = np.load(qfile, allow_pickle=False)
    texts, vectors = [str(t) for t in z["texts"]], z["vectors"]
    stages: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    counting = [False]
    lock = threading.Lock()

    def adder(key: str) -> Callable[[float, float], None]:
        def add(w: float, c: float) -> None:
            if counting[0]:
                with lock:
                    s = stages[key]
                    s[0], s[1], s[2] = s[0] + w, s[1] + c, s[2] + 1

        return add

    store = LanceStore(folder, "chunks_bench", vectors.shape[1])
    store.search(texts[0], vectors[0], 5, "hybrid")  # opens the table and maps the codes
    _timed(store._ram, "top", adder("candidate scan (sign bits, int8 codes)"))
    _timed(LanceStore, "_fts", adder("full-text halves (worker threads)"))
    _timed(store_mod, "rows_by_id", adder("rows of the winners"))
    first, walls, cpus = [], [], []
    for rep in range(3):
        counting[0] = rep > 0
        for q, v in zip(texts, vectors):
            w, c = time.perf_counter(), time.process_time()
            store.search(q, v, 10, "hybrid")
            (walls if rep else first).append(time.perf_counter() - w)
            if rep:
                cpus.append(time.process_time() - c)

    def ms(xs: list[float], p: float) -> str:
        return f"{1000 * float(np.percentile(xs, p)):.1f}"

    print(f"{n:,} rows, hybrid, k = 10, {len(texts)} questions")
    print(f"  first pass: p50 {ms(first, 50)} ms, p95 {ms(first, 95)} ms")
    print(
        f"  passes 2-3: p50 {ms(walls, 50)} ms, p95 {ms(walls, 95)} ms; process CPU p50 "
        f"{ms(cpus, 50)} ms"
    )
    for key, (w, c, calls) in sorted(stages.items(), key=lambda kv: -kv[1][0]):
        print(
            f"  {key:40s} {calls / len(walls):4.1f} calls  wall {1000 * w / len(walls):5.1f} ms"
            f"  thread CPU {1000 * c / len(walls):5.1f} ms a query"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["ocr", "search"])
    {"ocr": ocr, "search": search}[ap.parse_args().what]()


if __name__ == "__main__":
    main()
