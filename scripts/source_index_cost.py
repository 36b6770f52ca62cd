"""What the source index (a bitmap index on ``source``, ingest/maintain.py) costs an ingest.

    python scripts/source_index_cost.py [N_FILES] [REPS]

Two ingests of N small notes (the second incremental: the index kept current by
compaction), with and without the index, interleaved REPS times each, in fresh data homes.
A fake embedder keeps embedding out of it, so the index work is what differs; with the real
embedder the same ingests take seconds, so the ratio printed is an upper bound.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import localcrag.ingest.maintain as maintain  # noqa: E402
from localcrag.ingest.library import Library  # noqa: E402
from localcrag.settings import Settings  # noqa: E402
from tests.fakes import FakeEmbedder  # noqa: E402

REAL = maintain.ensure_source_index


def ingest_twice(with_index: bool, n: int) -> float:
    maintain.ensure_source_index = REAL if with_index else (lambda store, force=False: None)
    with tempfile.TemporaryDirectory() as home:
        os.environ["LOCALCRAG_HOME"] = home
        docs = Path(home) / "docs"
        docs.mkdir()
        for i in range(n):
            text = f"Note {i}. The robot arm {i} lifts boxes of {i} kg.\n" * 5
            (docs / f"note{i:04d}.txt").write_text(text, encoding="utf-8")
        lib = Library(Settings(), embedder=FakeEmbedder())
        t = time.perf_counter()
        lib.ingest([docs])
        (docs / "note0001.txt").write_text("A changed note about grippers.\n", encoding="utf-8")
        lib.ingest([docs])
        return time.perf_counter() - t


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    out: dict[bool, list[float]] = {True: [], False: []}
    ingest_twice(True, n), ingest_twice(False, n)  # warm-up: imports and first-use costs
    for rep in range(reps):
        for w in (True, False) if rep % 2 == 0 else (False, True):
            out[w].append(ingest_twice(w, n))
    for w, xs in out.items():
        name = "with the source index" if w else "without it           "
        print(f"{name}: {[round(x, 2) for x in xs]} s, median {statistics.median(xs):.2f} s")
    ratio = statistics.median(out[True]) / statistics.median(out[False])
    print(f"ratio {ratio:.3f} ({n} files, {reps} interleaved repetitions each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
