"""The vector-search designs tried for 1M chunks, measured side by side on the same corpus
(top-10 by cosine only, in this process, one thread): what each costs per query and in RAM,
and its recall@10 against exact float32.

A. float32 matrix in RAM, one matrix-vector product (the store before the sign-bit scan, record 0012);
B. int8 matrix in RAM, converted to float32 a block at a time for the product;
C. int8 matrix in RAM through onnxruntime's MatMulInteger (int8 x int8 -> int32);
D. sign bits in RAM (Hamming scan, 2,048 candidates) + int8 re-score (the store now).
LanceDB's IVF_PQ index is not re-built here: at 100k rows it took 166 s on these 2 cores
(section 2's note), so ~30 min at 1M, and it is approximate too.
"""

from __future__ import annotations

import time

import numpy as np

from bench import Row, Stat, fmt
from bench import scale_corpus as corpus


def _vectors(n: int, embedder: object) -> np.ndarray:
    passages, bv = corpus.base(embedder)
    out = np.empty((n, corpus.DIM), np.float32)
    for s in range(0, n, corpus.BLOCK):
        out[s : s + corpus.BLOCK] = corpus.synth_block(
            passages, bv, s, min(corpus.BLOCK, n - s), seed=n
        )[1]
    return out


def _ort_matmul(q8: np.ndarray):  # noqa: ANN202 - a callable query -> int32 scores
    import onnxruntime as ort
    from onnx import TensorProto, helper

    d = q8.shape[1]
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["A", "B"], ["Y"])],
        "scan",
        [
            helper.make_tensor_value_info("A", TensorProto.INT8, [None, d]),
            helper.make_tensor_value_info("B", TensorProto.INT8, [d, 1]),
        ],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, [None, 1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])

    def run(q: np.ndarray) -> np.ndarray:
        qi = np.round(q / np.abs(q).max() * 127).astype(np.int8).reshape(d, 1)
        return sess.run(None, {"A": q8, "B": qi})[0][:, 0].astype(np.float32)

    return run


def run(
    n: int, qv: np.ndarray, exact: np.ndarray, embedder: object, k: int = 10
) -> tuple[str, list[Row]]:
    from localcrag.ingest import vectors
    from localcrag.ingest.vectors import one_blas_thread

    m = _vectors(n, embedder)
    mean = vectors._mean(m[:65_536])
    parts = [vectors.encode(m[s : s + 65_536], mean) for s in range(0, n, 65_536)]
    scale = np.concatenate([p[0] for p in parts])
    q8 = np.concatenate([p[1] for p in parts])
    bits = np.concatenate([p[2] for p in parts], axis=1)
    seg = vectors.Segment(
        np.arange(n, dtype=np.uint64), np.ones(n, bool), np.zeros(n, np.uint64), scale, q8, bits
    )
    snap = vectors.Snapshot(1, (seg,), mean, n)

    def blocked(q: np.ndarray) -> np.ndarray:
        out = np.empty(n, np.float32)
        for s in range(0, n, 65_536):
            out[s : s + 65_536] = q8[s : s + 65_536].astype(np.float32) @ q
        return out * scale

    def topk(sims: np.ndarray) -> list[int]:
        idx = np.argpartition(-sims, k - 1)[:k]
        return idx[np.argsort(-sims[idx])].tolist()

    ort_run = _ort_matmul(q8)
    designs = {
        "A. float32 in RAM, exact product": (lambda q: topk(m @ q), m.nbytes / n, 0),
        "B. int8 in RAM, float32 product by blocks": (
            lambda q: topk(blocked(q)),
            (q8.nbytes + scale.nbytes) / n,
            0,
        ),
        "C. int8 in RAM, onnxruntime MatMulInteger": (
            lambda q: topk(ort_run(q) * scale),
            q8.nbytes / n,
            0,
        ),
        "D. sign bits + int8 re-score (the store)": (
            lambda q: [r for r, _ in vectors.top(snap, q, k)],
            bits.nbytes / n,
            q8.nbytes / n,
        ),
    }
    rows = []
    with one_blas_thread():
        for name, (fn, ram, disk) in designs.items():
            t, found = [], 0
            for q, ex in zip(qv, exact):
                a = time.perf_counter()
                got = fn(q)
                t.append(time.perf_counter() - a)
                found += len(set(got) & set(ex.tolist()))
            rows.append(
                Row(
                    name,
                    {
                        "p50 ms": fmt(Stat(t).pct(50) * 1000, 1),
                        "p95 ms": fmt(Stat(t).pct(95) * 1000, 1),
                        "recall@10": fmt(found / (k * len(qv)), 3),
                        "RAM B/chunk": f"{ram:,.0f}",
                        "on disk B/chunk": f"{disk:,.0f}" if disk else "—",
                    },
                )
            )
    return (
        f"Designs tried, {n:,} rows, top-{k} by cosine only (no full-text, no row fetch), one thread, "
        f"{len(qv)} report-split questions; D here without its float32 re-rank and with its int8 codes in RAM "
        "(the store reads them from the cache file: the probe rows above)",
        rows,
    )
