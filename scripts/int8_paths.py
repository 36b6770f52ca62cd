"""The shipped int8 embedder under each x86 int8 kernel path, on this machine.

    python scripts/int8_paths.py                       # cosine table, the 232 anthropic-docs chunks
    python scripts/int8_paths.py --out /tmp/paths      # and the two emulated models

onnxruntime runs the int8 MatMuls (u8 activations x s8 weights) with the kernel the CPU
offers: with VNNI (AVX512-VNNI, AVX-VNNI) or AMX every product is summed exactly in int32;
without it (AVX2, AVX-512 without VNNI) ``vpmaddubsw`` first adds each pair of adjacent
products into a *saturating* int16 (255 x 127 x 2 = 64,770 > 32,767), so vectors differ by
CPU. A machine can only run its own path, so this script writes two copies of the shipped
model in which every MatMulInteger is replaced by plain ONNX ops that compute one path
bit-exactly on any CPU:

- ``exact/``: sum of u8 x s8 in int32 (the VNNI / AMX result, and the result of the U8U8
  kernel that ``session.x64quantprecision=1`` selects on a machine without VNNI);
- ``saturating/``: each adjacent pair (k, k+1) summed and clipped to int16 first, as
  ``vpmaddubsw`` does on AVX2 / AVX-512BW without VNNI.

It also writes ``ln1``..``ln3``: the shipped model with one float32 ulp of seeded noise on
its layer norms (``ulp_noise``), the size of difference another instruction set's float
kernels can make once the int8 sums are exact. Each folder is a models directory (the
embedder folder linked, the model as ``all-MiniLM-L6-v2.int8.onnx``), so
``LOCALCRAG_MODELS_DIR=<out>/saturating localcrag eval ...`` measures a figure as such a
machine would. The table compares them over the first ``--texts`` anthropic-docs chunks and
the drift test's five texts, with the fp32 sentence-transformers model.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DOCS = REPO.parent / "shared" / "data" / "anthropic-docs" / "anthropic_docs.json"


def emulated(src: Path, saturate: bool) -> Any:
    """The int8 model at ``src`` with every MatMulInteger computing one kernel path in int32
    ONNX ops (an ``onnx.ModelProto``; ``InferenceSession(model.SerializeToString())`` runs it)."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    nodes: list[onnx.NodeProto] = []
    extra: list[onnx.TensorProto] = []

    def const(name: str, value: np.ndarray) -> str:
        extra.append(numpy_helper.from_array(value, name))
        return name

    for i, node in enumerate(graph.node):
        if node.op_type != "MatMulInteger":
            nodes.append(node)
            continue
        a, b, a_zp = node.input[0], node.input[1], node.input[2]
        w = numpy_helper.to_array(inits[b]).astype(np.int32)  # (K, N) s8 weights
        if len(node.input) > 3 and node.input[3]:
            assert not numpy_helper.to_array(inits[node.input[3]]).any(), "symmetric weights"
        p = f"emu{i}_"
        a32 = p + "a32"
        nodes.append(helper.make_node("Cast", [a], [a32], to=onnx.TensorProto.INT32))
        zp32 = p + "zp32"
        nodes.append(helper.make_node("Cast", [a_zp], [zp32], to=onnx.TensorProto.INT32))
        # MLAS sums raw u8 x s8 and subtracts zero_point(A) x column sums of B afterwards
        colsum = const(p + "colsum", w.sum(0).astype(np.int32))
        raw = p + "raw"
        nodes.append(helper.make_node("MatMul", [a32, const(p + "w", w)], [raw]))
        if saturate:  # add clip(pair) - pair for the pairs whose int16 sum can leave the range
            raw = _saturation(nodes, const, p, a32, raw, w)
        corr = p + "corr"
        nodes.append(helper.make_node("Mul", [zp32, colsum], [corr]))
        nodes.append(helper.make_node("Sub", [raw, corr], [node.output[0]]))
    used = {name for n in nodes for name in n.input}
    kept = [i for i in graph.initializer if i.name in used]
    del graph.node[:], graph.initializer[:]
    graph.node.extend(nodes)
    graph.initializer.extend(kept + extra)
    return model


def _saturation(nodes: list, const: Any, p: str, a32: str, exact: str, w: np.ndarray) -> str:
    """Nodes adding to ``exact`` (sum of u8 x s8 in int32) what int16 saturation of each
    adjacent pair of products takes off. Only a pair of weights with the same sign and a sum
    above 128 in magnitude can leave [-32768, 32767] with u8 activations (at most 255), so
    only those pairs (a few percent) are computed: gathered, clipped, scattered back."""
    from onnx import helper

    w0, w1 = w[0::2], w[1::2]  # (K/2, N): the pair (2j, 2j+1) of column n
    high = 255 * (np.maximum(w0, 0) + np.maximum(w1, 0)) > 32767
    low = 255 * (np.minimum(w0, 0) + np.minimum(w1, 0)) < -32768
    js, ns = np.nonzero(high | low)
    if not len(js):
        return exact
    out = {k: p + "sat_" + k for k in ("a0", "a1", "m0", "m1", "pair", "clip", "cut")}
    out |= {k: p + "sat_" + k for k in ("zero", "shape", "index", "scatter", "raw")}
    for k, rows, wk in (("0", 2 * js, w0), ("1", 2 * js + 1, w1)):
        idx = const(out["a" + k] + "_idx", rows.astype(np.int64))
        nodes.append(helper.make_node("Gather", [a32, idx], [out["a" + k]], axis=-1))
        wr = const(out["m" + k] + "_w", wk[js, ns].astype(np.int32))
        nodes.append(helper.make_node("Mul", [out["a" + k], wr], [out["m" + k]]))
    nodes.append(helper.make_node("Add", [out["m0"], out["m1"]], [out["pair"]]))
    lo = const(p + "sat_lo", np.array(-32768, dtype=np.int32))
    hi = const(p + "sat_hi", np.array(32767, dtype=np.int32))
    nodes.append(helper.make_node("Clip", [out["pair"], lo, hi], [out["clip"]]))
    nodes.append(helper.make_node("Sub", [out["clip"], out["pair"]], [out["cut"]]))
    zero = const(p + "sat_0", np.array(0, dtype=np.int32))
    nodes.append(helper.make_node("Mul", [exact, zero], [out["zero"]]))
    nodes.append(helper.make_node("Shape", [out["cut"]], [out["shape"]]))
    cols = const(p + "sat_cols", ns.astype(np.int64))
    nodes.append(helper.make_node("Expand", [cols, out["shape"]], [out["index"]]))
    nodes.append(
        helper.make_node(
            "ScatterElements",
            [out["zero"], out["index"], out["cut"]],
            [out["scatter"]],
            axis=-1,
            reduction="add",
        )
    )
    nodes.append(helper.make_node("Add", [exact, out["scatter"]], [out["raw"]]))
    return out["raw"]


def ulp_noise(src: Path, seed: int, eps: float = 2.0**-24) -> Any:
    """The int8 model at ``src`` with every LayerNormalization output multiplied by 1 + u,
    u uniform in [-eps, eps] (seeded; eps = 2**-24 moves about half the values by one float32
    ulp): what a machine whose float kernels round one ulp differently would feed the int8
    MatMuls. ``eps=0`` gives the same graph without noise, the baseline to compare with."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    nodes = []
    for i, node in enumerate(model.graph.node):
        nodes.append(node)
        if node.op_type != "LayerNormalization":
            continue
        y, raw = node.output[0], f"ulp{i}_raw"
        node.output[0] = raw
        nodes += [
            helper.make_node(
                "RandomUniformLike",
                [raw],
                [f"ulp{i}_u"],
                low=-eps,
                high=eps,
                seed=seed * 1000.0 + i + 1,
            ),
            helper.make_node("Add", [f"ulp{i}_u", "ulp_one"], [f"ulp{i}_f"]),
            helper.make_node("Mul", [raw, f"ulp{i}_f"], [y]),
        ]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    model.graph.initializer.append(numpy_helper.from_array(np.array(1.0, np.float32), "ulp_one"))
    return model


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="write the emulated and noisy models there")
    ap.add_argument("--texts", type=int, default=232, help="anthropic-docs chunks compared")
    args = ap.parse_args(argv)

    import onnx
    import onnxruntime as ort

    from localcrag.models.embed import load_embedder
    from localcrag.models.embed_onnx import (
        PRECISE_INT8,
        OnnxEmbedder,
        onnx_path_for,
        saturating_int8,
    )
    from localcrag.settings import Settings, default_models_dir

    folder = default_models_dir() / str(Settings.model_fields["embedder"].default)
    shipped = onnx_path_for(folder)
    reference = json.loads((REPO / "tests" / "data" / "embedder_reference.json").read_text())
    chunks = [c["text"] for c in json.loads(DOCS.read_text(encoding="utf-8"))][: args.texts]
    texts = chunks + reference["texts"]  # the drift test's five last
    emb = OnnxEmbedder(folder, shipped, threads=1)
    emb._load()
    assert emb._cut is not None
    ids = [e.ids for e in emb._cut.encode_batch(texts)]

    def run(model: Path | Any, precise: bool | None = None) -> tuple[np.ndarray, float]:
        """One text per run on one thread, as ingest's streams; texts per CPU second after a
        warm-up. ``precise``: force PRECISE_INT8 on or off (None: as the product sets it)."""
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        if precise if precise is not None else saturating_int8():
            so.add_session_config_entry(PRECISE_INT8, "1")
        source = str(model) if isinstance(model, Path) else model.SerializeToString()
        sess = ort.InferenceSession(source, so, providers=["CPUExecutionProvider"])
        OnnxEmbedder._run(sess, ids[:1])
        t = time.process_time()  # CPU time: fair on a shared machine
        out = np.concatenate([OnnxEmbedder._run(sess, [row]) for row in ids])
        return out, len(ids) / (time.process_time() - t)

    def save(name: str, model: Any) -> None:
        if args.out:
            path = args.out / name / shipped.name
            path.parent.mkdir(parents=True, exist_ok=True)
            onnx.save(model, str(path))
            link = args.out / name / folder.name
            if not link.exists():
                link.symlink_to(folder.resolve(), target_is_directory=True)

    vecs: dict[str, np.ndarray] = {}
    speed: dict[str, float] = {}
    vecs["shipped"], speed["shipped"] = run(shipped)
    vecs["u8s8 kernel"], speed["u8s8 kernel"] = run(shipped, precise=False)
    vecs["u8u8 kernel"], speed["u8u8 kernel"] = run(shipped, precise=True)
    for name in ("exact", "saturating"):
        model = emulated(shipped, saturate=name == "saturating")
        save(name, model)
        vecs[name] = run(model)[0]
    vecs["no noise"] = run(ulp_noise(shipped, 0, eps=0.0))[0]
    for seed in (1, 2, 3):
        model = ulp_noise(shipped, seed)
        save(f"ln{seed}", model)
        vecs[f"ln ulp, seed {seed}"] = run(model)[0]
    vecs["fp32 (torch)"] = np.asarray(load_embedder(folder, backend="torch").embed(texts))

    def cos(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (x * y).sum(1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))

    pairs = [
        ("u8s8 kernel", "u8u8 kernel"),
        ("exact", "shipped"),
        ("saturating", "shipped"),
        *[(f"ln ulp, seed {s}", "no noise") for s in (1, 2, 3)],
        ("shipped", "fp32 (torch)"),
        ("saturating", "fp32 (torch)"),
    ]
    n = len(chunks)
    print(f"cosine: {n} anthropic-docs chunks mean / min; the drift test's 5 texts min")
    for x, y in pairs:
        c = cos(vecs[x], vecs[y])
        print(f"  {x:>16} vs {y:<12} {c[:n].mean():.6f} / {c[:n].min():.6f}; {c[n:].min():.6f}")
    print(f"shipped: the product's session here ({PRECISE_INT8} set: {saturating_int8()})")
    print(f"u8s8 / u8u8 kernel: the session without / with {PRECISE_INT8}")
    for name, v in speed.items():
        print(f"  {name}: {v:.1f} texts per CPU second (one thread, one text per run)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
