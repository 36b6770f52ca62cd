"""The provisioned embedder gives the vectors it gave when the reference was written.

Tolerance: cosine >= 0.999 for every fixed text (the int8 copy sits at ~0.995 from fp32; a
drift of a fifth of that gap would already move retrieval figures in the third decimal, as
the README's anthropic-docs recall did between two machines, issue 25). Reference:
``tests/data/embedder_reference.json``, written by ``scripts/embedder_reference.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

REFERENCE = Path(__file__).parent / "data" / "embedder_reference.json"
TOLERANCE = 0.999


def cosines(reference: list[list[float]], vectors: np.ndarray) -> list[float]:
    ref = np.asarray(reference, dtype=np.float64)
    got = np.asarray(vectors, dtype=np.float64)
    return [float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))) for a, b in zip(ref, got)]


def test_the_check_catches_a_vector_that_moved() -> None:
    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))["vectors"]
    moved = np.asarray(ref, dtype=np.float64)
    rng = np.random.default_rng(0)
    moved[2] += rng.normal(0, 0.01, moved.shape[1])  # ~0.2 of a unit vector's norm, spread thin
    got = cosines(ref, moved)
    assert min(got[:2] + got[3:]) > 0.999999 and got[2] < TOLERANCE


def test_the_provisioned_embedder_has_not_drifted(real_embedder) -> None:  # noqa: ANN001
    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))
    vectors = np.stack([real_embedder.embed([t])[0] for t in ref["texts"]])
    got = cosines(ref["vectors"], vectors)
    assert min(got) >= TOLERANCE, (
        f"the embedder's vectors moved (cosine {min(got):.5f} < {TOLERANCE}; reference "
        f"written with onnxruntime {ref['onnxruntime']} on {ref['written_on']}): "
        "re-measure the README's retrieval figures, then run scripts/embedder_reference.py"
    )
