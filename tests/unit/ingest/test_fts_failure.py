"""A broken full-text index is never "no hits": it is rebuilt on the first text search
(tests/unit/ingest/test_faults.py); when it cannot be (another process holds the writer lock, a
read-only folder), text search is a one-line error and hybrid search runs on vectors alone and
says so (store, `search`, `ask`, the pipeline, the trace)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from localcrag import events as ev
from localcrag.errors import FullTextFailed
from localcrag.ingest.lock import WriterLock
from localcrag.ingest.store import LanceStore
from tests.support import REPO
from tests.support.fakes import FakeEmbedder, index_dirs, put_texts

EMB = FakeEmbedder()
TEXTS = ["the transformer uses attention", "gardening tips for tomatoes"]


def _break_fts(table_dir: Path) -> None:
    """Damage every file of the full-text index (a crash, a disk error, a bad copy)."""
    files = [p for d in index_dirs(table_dir, "fts") for p in d.rglob("*") if p.is_file()]
    assert files
    for p in files:
        p.write_bytes(b"garbage")


@pytest.fixture()
def busy(tmp_path: Path):
    """Hold a folder's writer lock (as another process would): the index cannot be rebuilt."""
    held: list[WriterLock] = []

    def hold(folder: Path) -> None:
        held.append(WriterLock(folder))
        held[-1].acquire()

    yield hold
    for lock in held:
        lock.release()


@pytest.fixture()
def broken(tmp_path: Path, busy) -> LanceStore:
    store = LanceStore(tmp_path / "idx", "t", EMB.dim)
    put_texts(store, "/d.txt", TEXTS, "h")
    store.ensure_fts(force=True)
    assert store.search("attention", None, 2, "text")[0].chunk.text == TEXTS[0]  # works first
    _break_fts(tmp_path / "idx" / "t.lance")
    busy(tmp_path / "idx")
    return LanceStore(tmp_path / "idx", "t", EMB.dim)  # a new process opens the damaged index


def test_text_search_on_a_broken_index_is_an_error(broken: LanceStore) -> None:
    with pytest.raises(FullTextFailed) as err:
        broken.search("attention", None, 2, "text")
    msg = str(err.value)
    assert msg.startswith("full-text search failed") and "--mode vector" in msg and "\n" not in msg
    assert ".cargo" not in msg and "lance error" not in msg


def test_hybrid_search_falls_back_to_vectors_and_says_so(broken: LanceStore) -> None:
    hits = broken.search("attention", EMB.embed(["attention"])[0], 2, "hybrid")
    assert hits[0].chunk.text == TEXTS[0]
    assert broken.fallback and broken.fallback.startswith("vector only: full-text search failed")
    healthy = LanceStore(broken.path.parent / "ok", "t", EMB.dim)
    put_texts(healthy, "/d.txt", TEXTS, "h")
    healthy.search("attention", EMB.embed(["attention"])[0], 2, "hybrid")
    assert healthy.fallback is None


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LOCALCRAG_HOME": str(home)}
    env.pop("LOCALCRAG_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "localcrag", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=REPO,
    )


@pytest.mark.slow
def test_search_command_on_a_broken_index(isolated_home: Path, tmp_path: Path, busy) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text(
        "# Robots\n\nCollaborative robots, called cobots, work next to people.\n", encoding="utf-8"
    )
    assert _cli(isolated_home, "ingest", str(doc)).returncode == 0
    assert _cli(isolated_home, "search", "cobots", "--mode", "text").returncode == 0
    (table,) = (isolated_home / "index").glob("*.lance")
    _break_fts(table)
    busy(isolated_home / "index")
    text = _cli(isolated_home, "search", "cobots", "--mode", "text")
    assert text.returncode == 1 and "Traceback" not in text.stderr
    assert text.stderr.strip().splitlines()[-1].startswith("localcrag: full-text search failed")
    hybrid = _cli(isolated_home, "search", "cobots", "--json")
    assert hybrid.returncode == 0
    out = json.loads(hybrid.stdout)
    assert out["results"] and out["fallback"].startswith("vector only: full-text search failed")
    plain = _cli(isolated_home, "search", "cobots")
    assert (
        "warning: vector only: full-text search failed" in plain.stderr and "cobots" in plain.stdout
    )


def test_the_pipeline_and_trace_say_vector_only(tmp_path: Path, busy) -> None:
    from localcrag.crag.pipeline import Pipeline
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings
    from tests.support.fakes import FakeGenerator, FakeGrader

    (tmp_path / "doc.md").write_text(
        "# Robots\n\nCobots work next to people in factories.\n", encoding="utf-8"
    )
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([tmp_path / "doc.md"])
    lib.store.ensure_fts(force=True)
    _break_fts(lib.store.path / f"{lib.store.name}.lance")
    busy(lib.store.path)
    pipe = Pipeline(
        Settings(offline=True, upper_threshold=0.5, lower_threshold=0.2),
        library=lib,
        grader=FakeGrader(),
        generator=FakeGenerator("Cobots work next to people [1]."),
    )
    evs = list(pipe.run("Where do cobots work?"))
    retrieved = next(e for e in evs if isinstance(e, ev.Retrieved))
    assert retrieved.hits and retrieved.fallback.startswith("vector only: full-text search failed")
    # a question naming a region looks its name up in the full-text index first: still vectors
    named = next(e for e in pipe.run("Do cobots work in Texas?") if isinstance(e, ev.Retrieved))
    assert named.hits and named.fallback.startswith("vector only: full-text search failed")
    pytest.importorskip("textual")
    from rich.console import Console

    from localcrag.tui.widgets.trace import TraceState, render_trace

    state = TraceState(question="Where do cobots work?")
    for e in evs:
        state.add(e)
    console = Console(width=100, record=True)
    console.print(render_trace(state, 0.5, 0.2))
    assert "⚠ vector only: full-text search failed" in console.export_text()
