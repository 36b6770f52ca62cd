"""`make bench` is not run by the suite (it takes most of an hour); this checks that every
section it lists imports and has a ``run(quick)``, so a broken merge fails here, not there."""

from __future__ import annotations

import importlib
import inspect

from tests.support import REPO


def test_every_listed_bench_section_imports_and_runs_with_quick() -> None:
    main = importlib.import_module("bench.__main__")
    assert len(set(main.SECTIONS)) == len(main.SECTIONS)
    assert tuple(main.RUNS) == main.SECTIONS  # one run for each section of the code map
    for name in main.SECTIONS:
        run = main.RUNS[name]
        assert run.__module__ == f"bench.{name}"
        assert list(inspect.signature(run).parameters) == ["quick"], name


def test_every_target_of_the_last_full_run_has_a_descriptive_unique_name() -> None:
    """The targets of the committed BENCHMARKS.json (every section's real target texts),
    named again by today's report code: none falls back to a generic ``sectionN-i`` name,
    no two share one, and every name in the table still matches a target."""
    import json
    import re

    from bench import Section
    from bench.report import NAMES, target_names

    report = json.loads((REPO / "BENCHMARKS.json").read_text(encoding="utf-8"))
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


def test_lancedb_own_hybrid_query_runs_on_the_products_table(tmp_path) -> None:
    """bench/quality.py puts the product's hybrid search beside LanceDB's own hybrid query on
    the same table; its figures come from `make bench`. On two tiny documents the
    peer's query runs against the product's table and columns, and both rank the document
    that answers first."""
    from bench.quality import lancedb_hybrid
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings
    from tests.support.fakes import FakeEmbedder

    (tmp_path / "robots.md").write_text(
        "# Robots\n\nCollaborative robots, called cobots, work next to people.\n"
    )
    (tmp_path / "rain.md").write_text("# Weather\n\nRain falls when clouds hold too much water.\n")
    emb = FakeEmbedder()
    lib = Library(Settings(), embedder=emb)
    lib.ingest([tmp_path / "robots.md", tmp_path / "rain.md"])
    q = "Where do cobots work?"
    vec = emb.embed([q])[0]
    for rrf_k in (60, 10):
        peer = lancedb_hybrid(lib.store, q, vec, 5, rrf_k)
        assert 1 <= len(peer) <= lib.count() and set(peer) <= {
            str(tmp_path / "robots.md"),
            str(tmp_path / "rain.md"),
        }
        assert peer[0].endswith("robots.md")
    assert lib.store.search(q, vec, 5, "hybrid")[0].chunk.source.endswith("robots.md")


def test_e2e_many_question_comparison_stops_at_enough_answered_and_reports_the_spread() -> None:
    """Section 4's warm CRAG/RAG ratio rests on >= 20 answered questions: the loop
    asks both modes until CRAG answered enough, refusals are left out of the pairs, and the
    table gives the per-question ratios' median, quartiles and range. Fake pipeline; the
    figures themselves come from `make bench`."""
    from bench.e2e import answered_pairs, ask_both, ratio_spread
    from localcrag import events as ev
    from localcrag.types import Action, Answer

    class Scripted:
        asked: list[tuple[str, str]] = []

        def run(self, q, mode, confirm_web):  # noqa: ANN001, ANN201
            self.asked.append((q, mode))
            refused = mode == "crag" and q == "q1"  # CRAG refuses one question
            ttft = {"crag": 100.0, "rag": 200.0}[mode] * (1 + int(q[1:]))
            yield ev.AnswerDone(
                Answer(
                    q, "x", (), Action.INCORRECT if refused else Action.CORRECT, refused=refused
                ),
                (),
                {"first_token": ttft},
            )

    pipe = Scripted()
    out = ask_both(pipe, [f"q{i}" for i in range(10)], enough=3)
    assert [a for a in out["crag"]["action"]] == [
        "correct",
        "refused",
        "correct",
        "correct",
    ]  # stops at 3
    assert pipe.asked[:4] == [
        ("q0", "crag"),
        ("q0", "rag"),
        ("q1", "rag"),
        ("q1", "crag"),
    ]  # alternating
    crag, rag = answered_pairs(
        out["crag"]["ttft"], out["rag"]["ttft"], [a == "refused" for a in out["crag"]["action"]]
    )
    assert len(crag) == len(rag) == 3
    assert ratio_spread(crag, rag) == "0.50× (0.50–0.50; 0.50–0.50), 3 questions"
    # quartiles by the section's nearest-rank percentile (bench.Stat.pct)
    assert (
        ratio_spread([1.0, 2.0, 3.0, 4.0, 5.0], [1.0] * 5)
        == "3.00× (2.00–4.00; 1.00–5.00), 5 questions"
    )


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


def test_every_section_names_code_that_exists_and_the_list_is_the_one_the_bench_runs() -> None:
    from bench import code
    from bench.__main__ import SECTIONS

    assert tuple(code.SECTION_CODE) == SECTIONS
    for name in SECTIONS:
        missing = [p for p in code.paths(name) if not (code.ROOT / p).exists()]
        assert not missing, (name, missing)


def test_a_section_is_stale_when_its_code_changes_and_only_its_own_code_counts(
    tmp_path, monkeypatch
) -> None:
    """The hash is over the section's files' paths and code: an edit to the code of one of
    them marks the section; bytecode, files outside its paths, comments and docstrings do
    not; an entry without a hash (a run from before hashes were recorded) is stale too."""
    from bench import code

    for rel in ("localcrag/ingest/a.py", "localcrag/llm/b.py", "bench/ocr.py", "bench/e2e.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(f'"""{rel}"""\nLIMIT = 3  # a bound\n')
    monkeypatch.setattr(code, "ROOT", tmp_path)  # no git checkout: every file but bytecode
    monkeypatch.setitem(code.SECTION_CODE, "ocr", ("localcrag/ingest", "localcrag/llm"))
    before = code.code_hash("ocr")
    entry = {"title": "12. OCR (scanned PDF pages)", "code": {"sha256": before}}
    assert code.section_name(entry) == "ocr" and code.stale({"sections": [entry]}) == {}
    (tmp_path / "localcrag/ingest/__pycache__").mkdir()
    (tmp_path / "localcrag/ingest/__pycache__/a.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "bench/e2e.py").write_text("# another section's module\n")
    (tmp_path / "localcrag/llm/b.py").write_text('"""Reworded."""\n\nLIMIT = 3  # the bound\n')
    assert code.code_hash("ocr") == before
    (tmp_path / "localcrag/llm/b.py").write_text("LIMIT = 4\n")
    assert code.stale({"sections": [entry]}) == {"ocr": "code changed since"}
    old = {"title": "12. OCR (scanned PDF pages)"}
    assert "no code hash recorded" in code.stale({"sections": [old]})["ocr"]
    (tmp_path / "localcrag/llm/b.py").write_text('"""Reworded."""\n\nLIMIT = 3  # the bound\n')
    failed = {**entry, "notes": ["failed: ModuleNotFoundError: No module named 'tests.x'"]}
    assert code.stale({"sections": [failed]}) == {"ocr": "failed in its last run"}


def test_readme_rows_of_a_changed_section_say_so(monkeypatch) -> None:
    """README's generated performance rows read BENCHMARKS.json: a row whose section's code
    changed since its run says "code changed since", and the table's source line names it."""
    import sys

    sys.path.insert(0, str(REPO / "scripts"))
    import readme_tables as rt

    from bench import code

    target = {"name": "ocr-cpu-seconds-per-page", "measured": "2.5 s", "pass": True}

    def bench(sha: str) -> rt.Bench:
        section = {"title": "12. OCR", "name": "ocr", "code": {"sha256": sha}, "targets": []}
        return rt.Bench({"targets": [target], "sections": [section], "commit": "abc1234"})

    row = rt.PerfRow("OCR a page", rt._target(target["name"]), rt._text("-"), [], rt._cmd("ocr"))
    assert row.section == "ocr"
    fresh = rt.perf_table([row], bench(code.code_hash("ocr")))
    assert "2.5 s |" in fresh and rt.CHANGED not in fresh
    changed = rt.perf_table([row], bench("0" * 64))
    assert f"2.5 s ({rt.CHANGED}) |" in changed and "sections (ocr)" in changed


def test_a_partial_run_is_merged_into_the_record_keeping_when_each_section_was_measured(
    tmp_path,
) -> None:
    """`python -m bench --only ocr` re-measures one section: the record keeps every other
    section as it was measured (its date, commit and code hash), in the report's order, and
    BENCHMARKS.md says which sections come from an earlier run; --alone writes the run only."""
    import json

    from bench import Row, Section
    from bench.__main__ import merged
    from bench.report import render, sections_from_json, to_json

    def section(name: str, title: str, figure: str) -> Section:
        return Section(
            title,
            tables=[("Speed", [Row("page", {"s": figure})])],
            targets=[("<= 3 s", figure, True)],
            name=name,
            code={"sha256": "x" * 64},
        )

    record = tmp_path / "BENCHMARKS.json"
    old = [section("ingest", "1. Ingestion", "1.0 s"), section("ocr", "12. OCR", "4.0 s")]
    data = json.loads(to_json(old, {}, False, []))
    data["sections"][0]["run"]["commit"] = "0123456789abcdef"  # measured on an older commit
    record.write_text(json.dumps(data))
    back = sections_from_json(data)
    assert back[1].tables[0][1][0].cells == {"s": "4.0 s"} and back[1].targets == old[1].targets
    new = [section("ocr", "12. OCR", "2.5 s")]
    out = merged(new, record, alone=False)
    assert [s.name for s in out] == ["ingest", "ocr"] and out[1] is new[0]
    assert out[0].run["commit"] == "0123456789abcdef" and out[0].code == {"sha256": "x" * 64}
    text = render(out, {}, False, 1.0, [])
    assert "measured" in text.split("## 1. Ingestion")[1].split("##")[0] and "0123456" in text
    assert "measured" not in text.split("## 12. OCR")[1]
    assert merged(new, record, alone=True) == new
    assert merged(new, tmp_path / "none.json", alone=False) == new


def test_every_name_the_bench_imports_from_the_tests_exists() -> None:
    """Bench sections build their inputs with the tests' builders (tests/support): a name
    moved or renamed there would fail the section only inside `make bench`, as a note."""
    import ast
    import importlib

    imported = [
        (node.module, alias.name, path.name)
        for path in sorted((REPO / "bench").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests")
        for alias in node.names
    ]
    assert imported  # the bench does borrow builders: this test guards something
    for module, name, where in imported:
        assert module.startswith("tests.support"), (where, module)  # never a test module
        assert hasattr(importlib.import_module(module), name), (where, module, name)
