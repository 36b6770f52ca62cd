"""Section 7: the index on disk: size and time for many small files, and racing
ingests.

2,000 one-line text files (quick: 300) are ingested into a fresh LOCALCRAG_HOME with the
product's embedder, once with the default retention (versions of the last hour kept for
``doctor --repair``) and once with ``index_keep_minutes = 0``; the index folder is compared
with the Arrow size of its rows. Then two ``localcrag ingest`` processes of one folder are
started at the same moment, again and again, and the index is checked for duplicates.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import ROOT, Row, Section, fmt, log, temp_home

BEFORE_SECONDS = 434  # 2,000 one-line files under load before batching and compaction


def _files(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"line{i:05d}.txt").write_text(
            f"Line {i}: robot arm {i % 97} in cell {i % 13} was calibrated on day {i % 365}.\n"
        )
    return folder


def _disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _one(folder: Path, embedder: object, keep: float | None) -> dict:
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    with temp_home("lcbench-index-"):
        s = Settings.load() if keep is None else Settings(index_keep_minutes=keep)
        lib = Library(s, embedder=embedder)
        t = time.perf_counter()
        report = lib.ingest([folder])
        seconds = time.perf_counter() - t
        rows = lib.store.table.to_arrow().nbytes
        size = _disk(lib.store.path)
        return {
            "seconds": seconds,
            "files": len(report.indexed),
            "rows_mb": rows / 1e6,
            "index_mb": size / 1e6,
            "ratio": size / rows,
            "versions": len(lib.store.table.list_versions()),
            "keep_minutes": s.storage.index_keep_minutes,
        }


def _race(folder: Path, runs: int) -> list[int]:
    """Duplicate rows after each of ``runs`` pairs of simultaneous `localcrag ingest`."""
    from localcrag.ingest.library import Library
    from localcrag.ingest.maintain import duplicates
    from localcrag.settings import Settings

    found = []
    for _ in range(runs):
        with temp_home("lcbench-race-"):  # the two processes inherit this LOCALCRAG_HOME
            procs = [
                subprocess.Popen(
                    [sys.executable, "-m", "localcrag", "ingest", str(folder), "--json"],
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
                for _ in range(2)
            ]
            for p in procs:
                _, err = p.communicate(timeout=600)
                if p.returncode:
                    raise RuntimeError(f"racing ingest failed: {err.decode()[-300:]}")
            n_extra, docs = duplicates(Library(Settings.load()).store)
            found.append(n_extra + len(docs))
    return found


def run(quick: bool) -> Section:
    from localcrag.models.embed import load_embedder
    from localcrag.settings import Settings

    sec = Section("7. Index on disk")
    n, runs = (300, 3) if quick else (2000, 20)
    settings = Settings.load()
    emb = load_embedder(
        settings.model_path(settings.models.embedder),
        settings.generation.threads,
        settings.models.embedder_backend,
    )
    emb.embed(["warm up"])
    with tempfile.TemporaryDirectory(prefix="lcbench-files-") as d:
        folder = _files(Path(d) / "lines", n)
        log(f"index: {n} one-line files, default retention and keep 0")
        results = [_one(folder, emb, None), _one(folder, emb, 0.0)]
        log(f"index: {runs} racing ingest pairs")
        race = _race(_files(Path(d) / "race", 50), runs)
    rows = [
        Row(
            f"retention {r['keep_minutes']:g} min" + (" (default)" if i == 0 else ""),
            {
                "seconds": fmt(r["seconds"], 1),
                "files/s": fmt(r["files"] / r["seconds"], 1),
                "rows (Arrow MB)": fmt(r["rows_mb"], 2),
                "index on disk (MB)": fmt(r["index_mb"], 2),
                "index / rows": f"{r['ratio']:.2f}×",
                "versions kept": r["versions"],
            },
        )
        for i, r in enumerate(results)
    ]
    sec.tables.append(
        (
            f"{n:,} one-line text files, one fresh ingest each ({emb.name}); "
            "before batched commits and compaction: 2,000 files -> 221 MB index, 2,003 versions, 434 s",
            rows,
        )
    )
    worst = max(r["ratio"] for r in results)
    sec.targets.append(
        ("index ≤ 3× its rows after the ingest (both retentions)", f"{worst:.2f}×", worst <= 3)
    )
    if not quick:
        sec.targets.append(
            (
                f"2,000 files no slower than before ({BEFORE_SECONDS} s)",
                f"{results[0]['seconds']:.0f} s",
                results[0]["seconds"] <= BEFORE_SECONDS,
            )
        )
    else:
        sec.notes.append("Quick run: 300 files instead of 2,000 and 3 racing pairs instead of 20.")
    sec.targets.append(
        (
            f"racing ingests of one folder (50 files): 0 duplicates in {runs} runs",
            f"{sum(race)} in {runs}",
            sum(race) == 0,
        )
    )
    sec.data.update({"files": n, "ingests": results, "race_duplicates": race})
    return sec
