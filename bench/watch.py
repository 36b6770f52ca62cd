"""Section 9: watched folders: seconds from a file saved (or deleted) in a folder that
``localcrag watch`` follows to the moment another process's view of the index finds (or no
longer finds) it by full-text search; targets 5 s each.

The watcher is a real ``localcrag watch`` process with the product's embedder on a fresh
LOCALCRAG_HOME; the reader is a Library in this process that re-opens the table each poll
(every 50 ms), as the app does when the index's change stamp moves.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import ROOT, Row, Section, Stat, fmt, log, temp_home


def _until(cond, deadline: float = 60.0) -> float:  # noqa: ANN001
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < deadline:
        if cond():
            return time.perf_counter() - t0
        time.sleep(0.05)
    return float("inf")


def _found(reader, word: str) -> bool:  # noqa: ANN001
    reader.refresh()
    if not reader.store.exists():
        return False
    return any(word in h.chunk.text for h in reader.store.search(word, None, 3, mode="text"))


def run(quick: bool) -> Section:
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    sec = Section("10. Watched folders")
    reps = 3 if quick else 8
    saved, deleted = Stat([]), Stat([])
    with (
        temp_home("lcbench-watch-") as home,
        tempfile.TemporaryDirectory(prefix="lcbench-watched-") as d,
    ):
        folder = Path(d)
        (folder / "seed.md").write_text("# Seed\n\nThe watcher starts with this note.\n")
        with open(home / "watch.log", "w") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "localcrag", "watch", str(folder)],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=dict(os.environ),
            )
        try:
            if _until(
                lambda: "Watching for changes" in (home / "watch.log").read_text(), 120
            ) == float("inf"):
                raise RuntimeError(
                    f"localcrag watch never started: {(home / 'watch.log').read_text()[-400:]}"
                )
            reader = Library(Settings())
            for i in range(reps):
                word = f"zebracorn{i}"
                log(f"watch: save and delete {i + 1}/{reps}")
                f = folder / f"note{i}.md"
                f.write_text(f"# Note {i}\n\nThe {word} lives in the office kitchen.\n")
                saved.samples.append(_until(lambda: _found(reader, word)))  # noqa: B023 (called at once)
                f.unlink()
                deleted.samples.append(_until(lambda: not _found(reader, word)))  # noqa: B023 (called at once)
        finally:
            proc.terminate()
            proc.wait(30)
    rows = [
        Row(label, {"runs": len(st.samples), "median s": fmt(st.median), "max s": fmt(st.hi)})
        for label, st in (
            ("saved file -> found by search", saved),
            ("deleted file -> gone", deleted),
        )
    ]
    sec.tables.append(("`localcrag watch DIR` (real embedder), a reader polling every 50 ms", rows))
    sec.targets.append(
        (
            "a file saved into a watched folder is searchable within 5 s",
            f"max {saved.hi:.1f} s",
            saved.hi <= 5,
        )
    )
    sec.targets.append(
        ("a deleted one is gone within 5 s", f"max {deleted.hi:.1f} s", deleted.hi <= 5)
    )
    sec.data = {"saved_s": saved.samples, "deleted_s": deleted.samples}
    return sec
