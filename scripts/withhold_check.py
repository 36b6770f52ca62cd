#!/usr/bin/env python
"""How close is `localcrag eval --withhold gold` to an index that never held the withheld text?

The withheld run drops a question's gold chunks inside the search (from the vector and the
full-text ranking before fusion) but the full-text statistics (IDF) and the int8 codes'
centring still count them. This re-ingests the SQuAD corpus without one paragraph at a
time (every STEP-th paragraph) and compares, for that paragraph's answerable questions, the
top-k of the withheld search with the top-k of the truly smaller index.

Usage (after one `localcrag eval SMALL.json ...` run, which builds the full eval index):
    LOCALCRAG_HOME=... python scripts/withhold_check.py ../shared/data/squad2-dev-subset/small.json [STEP] [K]
Prints every question whose top-k differs, then the counts.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

from localcrag.crag.retrieve import Retriever
from localcrag.eval.adapters import load_dataset
from localcrag.eval.runner import eval_settings, workdir_for
from localcrag.eval.withhold import chunk_ids_by_unit
from localcrag.ingest.library import Library
from localcrag.settings import Settings


def top(
    lib: Library, question: str, k: int, withhold: frozenset[str] = frozenset()
) -> list[tuple[str, int]]:
    """(paragraph id, character offset) of the top-k chunks: comparable across two indexes."""
    hits = Retriever(lib.settings, lib).search(question, k=k, withhold=withhold)
    return [(Path(h.chunk.source).stem, h.chunk.char_start) for h in hits]


def main(path: str, step: int = 9, k: int = 5) -> None:
    ds = load_dataset(path)
    wd = workdir_for(ds)
    full = Library(eval_settings(Settings.load(), wd / "index", True))
    if full.count() == 0:
        raise SystemExit(
            f"{wd / 'index'}: empty; run `localcrag eval {path} --only decisions` first"
        )
    by_unit = chunk_ids_by_unit(SimpleNamespace(library=full), ds)
    pids = sorted(by_unit)[::step]
    n = same_set = same_order = 0
    for pid in pids:
        tmp = Path(tempfile.mkdtemp(prefix="withhold-check-"))
        try:
            (tmp / "docs").mkdir()
            for f in (wd / "docs").glob("*.md"):
                if f.stem != pid:
                    shutil.copy(f, tmp / "docs" / f.name)
            small = Library(eval_settings(Settings.load(), tmp / "index", True))
            small.ingest([tmp / "docs"])
            for q in (q for q in ds.questions if q.answerable and q.context_id == pid):
                a, b = top(full, q.question, k, frozenset(by_unit[pid])), top(small, q.question, k)
                n, same_set, same_order = (
                    n + 1,
                    same_set + (set(a) == set(b)),
                    same_order + (a == b),
                )
                if a != b:
                    print(pid, q.qid, "withheld:", a, "smaller index:", b)
        finally:
            shutil.rmtree(tmp)
    print(
        f"paragraphs {len(pids)}, questions {n}: same top-{k} set {same_set}, same order {same_order}"
    )


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:4]))
