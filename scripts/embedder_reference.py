"""Write the shipped embedder's vectors for fixed texts (tests/data/embedder_reference.json).

    python scripts/embedder_reference.py            # after `make models`

tests/unit/models/test_embedder_drift.py compares the provisioned embedder with this file: the int8 ONNX
copy is exported and quantised at provision time, and its int8 kernels are chosen by the CPU,
so vectors can move between machines or package versions; figures that depend on them (the
retrieval recall in the README) move with them. The file records where it was written.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TEXTS = [
    "How many attention heads does the Transformer base model use?",
    "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy.",
    "Use the system prompt to give Claude a role and set the tone of its answers.",
    "Close on 2010-06-29: 23.83 (TSLA.csv, row 3).",
    "Artificial intelligence helps manage energy grids by forecasting demand.",
]
OUT = REPO / "tests" / "data" / "embedder_reference.json"


def main() -> int:
    import onnxruntime

    from localcrag.models.embed import load_embedder
    from localcrag.settings import Settings

    s = Settings()
    emb = load_embedder(s.model_path(s.models.embedder))
    vecs = [[round(float(x), 6) for x in emb.embed([t])[0]] for t in TEXTS]
    OUT.write_text(
        json.dumps(
            {
                "embedder": f"{s.models.embedder} ({type(emb).__name__})",
                "written_on": platform.processor() or platform.machine(),
                "onnxruntime": onnxruntime.__version__,
                "texts": TEXTS,
                "vectors": vecs,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
