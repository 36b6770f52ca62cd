"""One indexed LOCALCRAG_HOME per bench run (a temp dir), shared by the sections that ask.

The ai-information PDFs are ingested once with the product's embedder (and, when the
exported model exists, with the proposed ONNX one into its own table of the same home).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from bench import CACHE, DATA, PDFS, log

_HOME: tempfile.TemporaryDirectory | None = None
_DONE: set[str] = set()


def home() -> Path:
    """The run's temp LOCALCRAG_HOME (created on first use, removed at exit)."""
    global _HOME
    if _HOME is None:
        _HOME = tempfile.TemporaryDirectory(prefix="lcbench-home-")
    return Path(_HOME.name)


def env() -> dict[str, str]:
    """Environment for a subprocess that should see the indexed home, offline."""
    e = dict(os.environ)
    e.update(LOCALCRAG_HOME=str(home()), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return e


def onnx_embedder() -> Any | None:
    """The proposed ONNX int8 embedder, if its model is exported under .bench/ and the
    product does not use an ONNX embedder already (then there is nothing to propose)."""
    from bench.onnx_embed import OnnxEmbedder, cached_onnx
    from localcrag.embed import SentenceTransformerEmbedder, load_embedder
    from localcrag.settings import Settings

    s = Settings.load()
    if not isinstance(load_embedder(s.model_path(s.embedder), s.threads), SentenceTransformerEmbedder):
        return None
    path = cached_onnx(s.model_path(s.embedder), CACHE)
    return OnnxEmbedder(s.model_path(s.embedder), path, s.threads) if path else None


def indexed(kind: str = "st") -> Path:
    """Ingest the PDFs into the run's home with the embedder ``kind`` (st | onnx), once."""
    os.environ["LOCALCRAG_HOME"] = str(home())
    if kind in _DONE:
        return home()
    from localcrag.embed import load_embedder
    from localcrag.library import Library
    from localcrag.settings import Settings

    s = Settings.load()
    emb = load_embedder(s.model_path(s.embedder), s.threads) if kind == "st" else onnx_embedder()
    if emb is None:
        raise RuntimeError("no ONNX model exported")
    log(f"indexing {len(PDFS)} PDFs into {home()} ({kind})")
    report = Library(s, embedder=emb).ingest(PDFS)
    if report.failed:
        raise RuntimeError(f"ingest failed: {report.failed}")
    _DONE.add(kind)
    return home()


def val_questions() -> list[tuple[str, bool]]:
    """ai-information/val.json: (question, answerable), answerable and not alternating."""
    items = json.loads((DATA / "ai-information" / "val.json").read_text(encoding="utf-8"))
    yes = [(i["question"], True) for i in items if i["has_answer"]]
    no = [(i["question"], False) for i in items if not i["has_answer"]]
    out: list[tuple[str, bool]] = []
    for a, b in zip(yes, no):
        out += [a, b]
    return out + yes[len(no):] + no[len(yes):]
