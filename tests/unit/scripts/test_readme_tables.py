"""README.md's generated tables (scripts/readme_tables.py, cog): the committed README is what
the generator renders from the committed BENCHMARKS.json and docs/results/*.json, a figure
changed in a source changes the README, and absent sources read "not measured yet"."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import REPO

sys.path.insert(0, str(REPO / "scripts"))  # cog imports it the same way (-I scripts)

import readme_evals as evals  # noqa: E402
import readme_tables as rt  # noqa: E402


def test_committed_readme_is_what_the_generator_renders() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "cogapp", "--check", "-I", "scripts", "README.md"]
        + ["docs/ingest.md", "docs/performance.md"],  # the Makefile's COG_FILES
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_readme_eval_has_a_committed_result_with_its_command() -> None:
    for ev in rt.EVALS:
        stored = rt.load_result(ev.name)
        assert stored["command"] == ev.command
        assert stored["runs"], ev.name
        for run in stored["runs"]:
            assert run["commit"] and run["started"] and run["load_start"]
            assert "items" not in run["results"]
    table = rt.eval_table()
    assert rt.NOT_MEASURED not in table
    assert "**in-sample**" in table


def test_perf_tables_render_the_committed_benchmarks() -> None:
    bench = rt.Bench.load()
    text = rt.perf_table(rt.PERFORMANCE, bench)
    assert bench.measured("ingest-vs-tutorial") in text
    assert bench.measured("ocr-cpu-seconds-per-page") in rt.ocr_sentence(bench)
    # each row: what | measured | spread | target | chosen on | command
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == len(rt.PERFORMANCE) + 1
    assert all(line.count(" | ") == 5 and "python -m bench --only" in line for line in rows[1:])


def _bench() -> dict[str, Any]:
    return json.loads((REPO / "BENCHMARKS.json").read_text(encoding="utf-8"))


def test_a_changed_figure_changes_the_table() -> None:
    data = _bench()
    before = rt.perf_table(rt.PERFORMANCE, rt.Bench(data))
    changed = copy.deepcopy(data)
    for t in changed["targets"]:
        if t["name"] == "ingest-vs-tutorial":
            t["measured"], t["pass"] = "1.23×", False
    for s in changed["sections"]:
        for table in s["tables"]:
            for row in table["rows"]:
                if str(row["label"]).startswith("tutorial baseline"):
                    row["seconds"] = "2.22 (1.11–9.99)"
    after = rt.perf_table(rt.PERFORMANCE, rt.Bench(changed))
    assert after != before
    line = next(x for x in after.splitlines() if "vs the tutorial baseline" in x)
    assert "1.23×" in line and "tutorial 1.11–9.99 s" in line and "≥ 2×: **missed**" in line


def test_a_target_shows_the_bound_the_bench_measured_against() -> None:
    """A target the bench tightened ("1M: hybrid p50 ≤ 40 ms", was 50) is shown with its
    bench's bound, whatever bound the table's row was written with."""
    data = copy.deepcopy(_bench())
    for t in data["targets"]:
        if t["name"] == "1m-hybrid-p50":
            t["target"], t["pass"] = "1M: hybrid p50 ≤ 33 ms", False
    line = next(
        x
        for x in rt.perf_table(rt.SCALE, rt.Bench(data)).splitlines()
        if x.startswith("| 1M chunks: hybrid search p50")
    )
    assert "≤ 33 ms: **missed**" in line and "≤ 40 ms" not in line, line


def test_absent_sections_and_results_read_not_measured_yet(tmp_path: Path) -> None:
    data = _bench()
    data["sections"] = [s for s in data["sections"] if not s["title"].startswith("12.")]
    data["targets"] = [t for t in data["targets"] if not t["name"].startswith("ocr-")]
    bench = rt.Bench(data)
    line = next(x for x in rt.perf_table(rt.PERFORMANCE, bench).splitlines() if "OCR" in x)
    assert line.count(rt.NOT_MEASURED) == 2  # the figure and the verdict
    assert rt.NOT_MEASURED in rt.ocr_sentence(bench)
    assert rt.NOT_MEASURED in rt.perf_table(rt.SCALE, rt.Bench({}))
    empty = rt.eval_table(tmp_path)
    assert empty.count(rt.NOT_MEASURED) == len(rt.EVAL_ROWS) + len(rt.EVALS)


def _stored(tmp_path: Path, firsts: list[float]) -> Path:
    """docs/results/val.json with one run per first-token figure, otherwise identical."""
    base = rt.load_result("val")["runs"][0]
    runs = []
    for ms in firsts:
        run = copy.deepcopy(base)
        run["results"]["modes"]["crag"]["first_token_ms_p50"] = ms
        runs.append(run)
    evals.store("val", "localcrag eval x", runs, tmp_path)
    return tmp_path


def test_spread_says_whether_the_runs_agree(tmp_path: Path) -> None:
    table = rt.eval_table(_stored(tmp_path, [40.0, 90.0]))
    first = next(x for x in table.splitlines() if "first token p50" in x)
    assert "2 runs: CRAG 40–90" in first
    f1 = next(x for x in table.splitlines() if "answer token F1 / recall (both" in x)
    assert "same in 2 runs" in f1
    one = rt.eval_table(_stored(tmp_path, [40.0]))
    assert "| 1 run |" in next(x for x in one.splitlines() if "first token p50" in x)


def test_collect_and_store_keep_the_run_and_drop_per_question_rows(tmp_path: Path) -> None:
    d = tmp_path / "val-1"
    (d / "out").mkdir(parents=True)
    results = {"dataset": "x", "items": [{"qid": 1}], "index": {"dir": "/tmp/x", "chunks": 3}}
    (d / "out" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    meta = {"command": "localcrag eval x", "commit": "abc", "started": "2026-12-01T18:00:00Z"}
    meta |= {"ended": "2026-12-01T18:01:00Z", "load_start": "1.5 1.0 0.5", "load_end": "2 1 1"}
    for k, v in meta.items():
        (d / k).write_text(v + "\n", encoding="utf-8")
    run = evals.collect(d)
    assert run["load_start"] == [1.5, 1.0, 0.5] and run["commit"] == "abc"
    assert run["results"] == {"dataset": "x", "index": {"chunks": 3}}
    path = evals.store("val", "localcrag eval x", [run], tmp_path)
    assert json.loads(path.read_text())["runs"][0]["started"] == meta["started"]
    with pytest.raises(SystemExit, match="no results.json"):
        evals.collect(tmp_path / "missing")
