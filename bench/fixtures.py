"""One indexed LOCALCRAG_HOME per bench run (a temp dir), shared by the sections that ask.

The ai-information PDFs are ingested once with the product's default embedder.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from bench import DATA, PDFS, log

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


def indexed() -> Path:
    """Ingest the PDFs into the run's home with the product's embedder, once."""
    os.environ["LOCALCRAG_HOME"] = str(home())
    if "default" in _DONE:
        return home()
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    log(f"indexing {len(PDFS)} PDFs into {home()}")
    report = Library(Settings.load()).ingest(PDFS)
    if report.failed:
        raise RuntimeError(f"ingest failed: {report.failed}")
    _DONE.add("default")
    return home()


def val_questions() -> list[tuple[str, bool]]:
    """ai-information/val.json: (question, answerable), answerable and not alternating."""
    items = json.loads((DATA / "ai-information" / "val.json").read_text(encoding="utf-8"))
    yes = [(i["question"], True) for i in items if i["has_answer"]]
    no = [(i["question"], False) for i in items if not i["has_answer"]]
    out: list[tuple[str, bool]] = []
    for a, b in zip(yes, no):
        out += [a, b]
    return out + yes[len(no) :] + no[len(yes) :]
