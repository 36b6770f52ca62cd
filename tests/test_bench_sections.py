"""`make bench` is not run by the suite (it takes most of an hour); this checks that every
section it lists imports and has a ``run(quick)``, so a broken merge fails here, not there."""

from __future__ import annotations

import importlib
import inspect


def test_every_listed_bench_section_imports_and_runs_with_quick() -> None:
    main = importlib.import_module("bench.__main__")
    assert len(set(main.SECTIONS)) == len(main.SECTIONS)
    for name in main.SECTIONS:
        run = importlib.import_module(f"bench.{name}").run
        assert list(inspect.signature(run).parameters) == ["quick"], name


def test_every_target_of_the_last_full_run_has_a_descriptive_unique_name() -> None:
    """The targets of the committed BENCHMARKS.json (every section's real target texts),
    named again by today's report code: none falls back to a generic ``sectionN-i`` name,
    no two share one, and every name in the table still matches a target."""
    import json
    import re
    from pathlib import Path

    from bench import Section
    from bench.report import NAMES, target_names

    report = json.loads((Path(__file__).resolve().parents[1] / "BENCHMARKS.json").read_text(encoding="utf-8"))
    names: list[str] = []
    for sec in report["sections"]:
        targets = [(t["target"], t["measured"], t["pass"]) for t in sec["targets"]]
        names += target_names(Section(sec["title"], targets=targets, data=sec["data"]))
    assert len(names) == len(report["targets"]) > 30
    generic = [n for n in names if re.fullmatch(r"section\d+-\d+", n)]
    assert not generic, generic
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", n) for n in names), names
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
    assert {name for _, name in NAMES} <= set(names)


def test_endpoint_probe_counts_a_request_thread_that_has_ended() -> None:
    """bench.endpoint_probe's CPU accounting: a thread that starts and ends between two
    readings (the run-ahead stream's) is still counted, as "exited"."""
    import os
    import threading
    import time

    from bench.endpoint_probe import busy, cpu_by_thread

    def burn() -> None:
        end = time.thread_time() + 0.2
        while time.thread_time() < end:
            pass

    before = cpu_by_thread(os.getpid())
    t = threading.Thread(target=burn)
    t.start()
    t.join()
    gone = time.monotonic() + 2  # the OS thread outlives join() for a moment
    while os.path.exists(f"/proc/self/task/{t.native_id}") and time.monotonic() < gone:
        time.sleep(0.01)
    used = busy(before, cpu_by_thread(os.getpid()))
    exited = [float(x.split()[1]) for x in used if isinstance(x, str)]
    assert exited and 0.15 <= exited[0] <= 0.5, used


def test_the_scale_sections_synthetic_rows_fit_a_fresh_index(tmp_path) -> None:
    """`python -m bench --quick` on a fresh clone: the scale table is written in the index's
    own schema (it once lacked `locator`: "Target schema's field names are not matching")."""
    import numpy as np

    from bench.scale_corpus import DIM, block_rows
    from localcrag.ingest.rows import schema
    from localcrag.ingest.store import LanceStore

    v = np.random.default_rng(0).standard_normal((3, DIM)).astype(np.float32)
    rows = block_rows(10, ["one text.", "two texts.", "three texts."], v)
    assert rows.schema.names == schema(DIM).names
    store = LanceStore(tmp_path / "index", "chunks_bench", DIM)  # a fresh table, as on a clone
    store.table.add(rows)
    assert store.count() == 3
    assert store.table.to_arrow()["chunk_id"].to_pylist() == ["c0000010", "c0000011", "c0000012"]
