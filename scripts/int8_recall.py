"""Which of the embedder's MatMuls to keep in float32: vector recall@5 on anthropic-docs
(bench section 1's quality table, `bench/quality.py`) and the encode time of its chunks, for
the shipped int8 copy and variants that leave some MatMuls unquantized.

    python scripts/int8_recall.py [--out /tmp/int8-variants]

Variants (node names of the exported graph): ``last`` = layer 5's six MatMuls, ``ffn`` =
every layer's two feed-forward MatMuls, ``first_last`` = layers 0 and 5, ``out`` = every
layer's feed-forward output MatMul. The figure to beat: within 1 point of float32's vector
recall@5 at <= 1.3x the shipped copy's encode time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    import onnx

    from bench.quality import evaluate
    from localcrag.models.embed import SentenceTransformerEmbedder
    from localcrag.models.embed_onnx import OnnxEmbedder, export_fp32
    from localcrag.models.quantize import int8_matmuls
    from localcrag.settings import Settings

    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, default=Path("/tmp/int8-variants"))
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    s = Settings.load()
    model_dir = s.model_path(s.models.embedder)
    fp32 = args.out / "fp32.onnx"
    if not fp32.is_file():
        export_fp32(model_dir, fp32)
    mm = [n.name for n in onnx.load(str(fp32)).graph.node if n.op_type == "MatMul"]
    layer = lambda i: [n for n in mm if f"/layer.{i}/" in n]  # noqa: E731
    ffn = [n for n in mm if "/intermediate/" in n or ("/output/" in n and "/attention/" not in n)]
    variants = {
        "shipped (every MatMul int8)": [],
        "last: layer 5 float32": layer(5),
        "first_last: layers 0 and 5 float32": layer(0) + layer(5),
        "out: feed-forward output MatMuls float32": [n for n in ffn if "/intermediate/" not in n],
        "ffn: feed-forward MatMuls float32": ffn,
    }
    st = SentenceTransformerEmbedder(model_dir, threads=s.generation.threads)
    base = evaluate(st)
    print(
        f"float32 (sentence-transformers): vector recall@5 {base['vector_recall']:.1f}, "
        f"hybrid {base['hybrid_recall']:.1f}; MatMuls: {len(mm)}"
    )
    from bench.quality import materialise  # noqa: F401 - the same corpus evaluate reads

    texts = None
    rows = []
    for label, keep in variants.items():
        path = int8_matmuls(fp32, args.out / (label.split(":")[0].split(" ")[0] + ".onnx"), keep)
        emb = OnnxEmbedder(model_dir, path, threads=s.generation.threads)
        r = evaluate(emb)
        if texts is None:
            from bench import temp_home
            from localcrag.ingest.library import Library

            with temp_home("lc-int8-") as home:
                docs, _ = materialise(home)
                lib = Library(Settings.load(), embedder=emb)
                lib.ingest([docs])
                texts = lib.store.all_texts()
        emb.embed(texts[:8])
        t = []
        for _ in range(3):
            t0 = time.perf_counter()
            emb.embed(texts)
            t.append(time.perf_counter() - t0)
        rows.append((label, len(keep), r["vector_recall"], r["hybrid_recall"], min(t)))
    ship = rows[0][4]
    print(
        f"| variant | MatMuls float32 | vector recall@5 (fp32 {base['vector_recall']:.1f}) | "
        f"hybrid recall@5 (fp32 {base['hybrid_recall']:.1f}) | encode {len(texts or [])} chunks |"
    )
    print("|---|---|---|---|---|")
    for label, n, v, h, sec in rows:
        print(
            f"| {label} | {n} | {v:.1f} ({v - base['vector_recall']:+.1f}) | {h:.1f} "
            f"({h - base['hybrid_recall']:+.1f}) | {sec:.2f} s ({sec / ship:.2f}x) |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
