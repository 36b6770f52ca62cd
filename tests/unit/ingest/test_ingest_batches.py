"""Re-ingesting the same files stores the same vectors, bit for bit, and they are the very
vectors a query-sized call gives (one text per run; embed_onnx.BATCH).

The int8 model quantises activations per run, so a text batched with others would get a
vector that depends on its batch-mates; ingest runs one text per run in parallel streams.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.support import MODELS, REPO

_INGEST = """
import json, sys
import numpy as np
from localcrag.ingest.library import Library
from localcrag.settings import Settings
lib = Library(Settings.load())
lib.ingest(json.loads(sys.argv[2]))
d = lib.store.columns(["chunk_id", "vector"])
order = np.argsort(d["chunk_id"])
np.save(sys.argv[1], np.asarray(d["vector"], np.float32)[order])
"""


def _notes(n: int) -> str:
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    return "\n\n".join(
        f"Note {i}: " + " ".join(words[(i + j) % 8] for j in range(8 + i * 7 % 90)) + "."
        for i in range(n)
    )


def test_two_fresh_ingests_in_two_processes_store_identical_vectors(
    tmp_path: Path, ai_pdf: Path, real_embedder, monkeypatch
) -> None:
    """Real int8 model, each ingest in its own process with its own hash seed (batch-mates
    picked from anything unordered, or from whichever thread finished first, would change
    the bits), and each stored vector equal to a one-text call's."""
    from localcrag.models.embed_onnx import BULK, OnnxEmbedder

    if not isinstance(real_embedder, OnnxEmbedder):
        pytest.skip("no int8 ONNX copy in models/ (run `make models`)")
    note = tmp_path / "notes.txt"
    note.write_text(_notes(40), encoding="utf-8")
    paths = json.dumps([str(ai_pdf), str(note)])
    runs = []
    for seed in ("1", "2"):
        env = {
            **os.environ,
            "PYTHONHASHSEED": seed,
            "LOCALCRAG_HOME": str(tmp_path / f"home{seed}"),
            "LOCALCRAG_MODELS_DIR": str(MODELS),
            "PYTHONPATH": str(REPO),
        }
        out = tmp_path / f"v{seed}.npy"
        subprocess.run(
            [sys.executable, "-c", _INGEST, str(out), paths], env=env, check=True, timeout=300
        )
        runs.append(np.load(out))
    assert runs[0].shape[0] > BULK  # a bulk call: ingest ran in streams
    assert np.array_equal(runs[0], runs[1])
    monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path / "here"))
    lib = Library(Settings(), embedder=real_embedder)
    lib.ingest([ai_pdf, note])
    d = lib.store.columns(["chunk_id", "text"])
    texts = [d["text"][i] for i in np.argsort(d["chunk_id"])]
    alone = np.stack([real_embedder.embed([t])[0] for t in texts])  # as a query is embedded
    assert np.array_equal(alone, runs[0])
