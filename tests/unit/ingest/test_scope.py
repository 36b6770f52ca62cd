"""Scopes: a question asked within chosen documents searches them alone, says so, and a
pattern that names no indexed document is an error, never a silent search of all."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from localcrag.ingest.scope import BadScope, matching, resolve
from localcrag.types import Action, Scope

INDEXED = [
    "/docs-x/reports/2019 Annual Report.pdf",
    "/docs-x/reports/2020 Annual Report.pdf",
    "/docs-x/data/sales.csv",
    "/docs-x/data/Codebook.md",
]


def test_a_pattern_is_a_path_a_folder_a_glob_or_a_file_name(monkeypatch) -> None:
    monkeypatch.chdir("/")
    assert matching("/docs-x/data/sales.csv", INDEXED) == ["/docs-x/data/sales.csv"]
    assert matching("/docs-x/reports", INDEXED) == INDEXED[:2]  # a folder: every file under it
    assert matching("/docs-x/reports/", INDEXED) == INDEXED[:2]
    assert matching("/docs-x/rep", INDEXED) == []  # a prefix of a folder's name is no folder
    assert matching("*.csv", INDEXED) == ["/docs-x/data/sales.csv"]  # a glob over file names
    assert matching("/docs-x/reports/2019*", INDEXED) == INDEXED[:1]  # a glob over paths
    assert matching("docs-x/data/*", INDEXED) == INDEXED[2:]  # relative to the working folder
    assert matching("codebook.md", INDEXED) == ["/docs-x/data/Codebook.md"]  # a bare name, any case
    assert matching("Codebook.md", INDEXED) == ["/docs-x/data/Codebook.md"]
    assert matching("", INDEXED) == []


def test_patterns_together_and_a_pattern_that_names_nothing(monkeypatch) -> None:
    monkeypatch.chdir("/")
    assert resolve(["*.csv", "/docs-x/data", "*.csv"], INDEXED) == tuple(INDEXED[2:])
    with pytest.raises(BadScope) as err:  # one typo never widens or empties the search
        resolve(["*.csv", "2019 report.pdf"], INDEXED)
    assert "'2019 report.pdf'" in str(err.value) and "4 indexed documents" in str(err.value)
    assert "localcrag sources" in str(err.value)


def test_a_scope_labels_itself_by_file_or_by_patterns() -> None:
    one = Scope(("*2019*",), ("/docs-x/reports/2019 Annual Report.pdf",), 12)
    assert one.label == "2019 Annual Report.pdf"
    assert Scope(("reports", "*.csv"), tuple(INDEXED[:3]), 40).label == "3 files (reports, *.csv)"


def test_top_within_masks_ranks_only_the_scope_and_finds_its_best() -> None:
    """The vector half filters before ranking: with few candidates overall, the scope's own
    best rows still come back (a post-filter of the global top would return none)."""
    from localcrag.ingest.vectors import Snapshot, in_rows, segment, top

    rng = np.random.default_rng(7)
    vecs = rng.normal(size=(3000, 64)).astype(np.float32)
    q = vecs[0]
    near = np.arange(1600, 1610)  # in the scope, close to the query; row 0 is outside
    vecs[near] = q + 0.3 * rng.normal(size=(10, 64)).astype(np.float32)
    ids = [f"c{i}" for i in range(3000)]
    snap = Snapshot(
        1, (segment(np.arange(3000, dtype=np.uint64), ids, vecs, vecs.mean(0)),), vecs.mean(0)
    )
    scope = np.arange(1500, 3000, dtype=np.uint64)
    got = top(snap, q, 10, candidates=200, within=in_rows(snap, scope))
    assert got and all(1500 <= rid < 3000 for rid, _ in got)
    assert {rid for rid, _ in got} == set(near.tolist())
    assert top(snap, q, 1, candidates=200)[0][0] == 0  # unscoped, the nearest of all
    small = np.array([5, 17, 2999], dtype=np.uint64)  # a scope under the candidates: exact
    assert sorted(r for r, _ in top(snap, q, 10, within=in_rows(snap, small))) == [5, 17, 2999]


REPORT = """{name} Annual Report

Attendance
Total attendance for the year was {visitors} visitors, counted at the front desk.
{filler}
"""


def _two_reports(docs: Path) -> None:
    docs.mkdir()
    filler = "\n".join(f"Gallery {i} was repainted and reopened in spring." for i in range(30))
    (docs / "museum.txt").write_text(
        REPORT.format(name="Museum", visitors="41,000", filler=filler), encoding="utf-8"
    )
    (docs / "library.txt").write_text(
        REPORT.format(name="Library", visitors="52,000", filler=""), encoding="utf-8"
    )


def test_a_scoped_question_quotes_only_the_scoped_document(tmp_path: Path) -> None:
    """Two reports hold the same kind of figure: scoped to one, the answer quotes its figure
    and cites it alone; every retrieved passage is from it, a refusal says what was searched,
    and the web is never asked."""
    from tests.support.fakes import FakeGenerator, asked, quoting_pipeline

    docs = tmp_path / "docs"
    _two_reports(docs)
    pipe = quoting_pipeline(
        docs, FakeGenerator(), upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.1
    )
    library = str(docs / "library.txt")
    scope = pipe.library.scope([library])
    assert scope.sources == (library,) and scope.passages == pipe.library.store.count_in([library])
    for name, figure, other in (
        (library, "52,000", "41,000"),
        (str(docs / "museum.txt"), "41,000", "52,000"),
    ):
        run = asked(pipe, "What was the total attendance?", scope=pipe.library.scope([name]))
        assert run.scope is not None and run.scope.sources == (name,)
        assert {h.chunk.source for h in run.hits} == {name}
        assert figure in run.answer.text and other not in run.answer.text, run.answer.text
        assert {c.source for c in run.sources} == {name}
    refused = asked(pipe, "Who painted the ceiling of gallery 9?", scope=scope)
    assert refused.action is Action.INCORRECT and refused.claims_nothing
    assert "documents in scope, library.txt," in refused.answer.text
    assert "asked within chosen documents" in refused.answer.text  # and no web search
    assert refused.web_query is None
    assert refused.searched and refused.searched["text"].startswith(
        f"Searched {len(refused.hits)} of the {scope.passages} passage"
    )
    assert refused.searched["scope"]["files"] == [library]


def test_the_store_prefilters_each_search_mode(tmp_path: Path) -> None:
    """k hits from the scope whenever it holds k passages, in every mode, though the other
    document's passages match the query better: a filter before ranking, not after."""
    from tests.support.fakes import quoting_pipeline

    docs = tmp_path / "docs"
    _two_reports(docs)
    museum = str(docs / "museum.txt")
    pipe = quoting_pipeline(docs)
    store = pipe.library.store
    vector = pipe.library.embedder.embed(["gallery repainted reopened spring visitors"])[0]
    library = str(docs / "library.txt")
    held = store.count_in([library])
    assert 1 <= held < store.count_in([museum])
    for mode in ("hybrid", "vector", "text"):
        everywhere = store.search("gallery repainted reopened spring visitors", vector, 3, mode)
        assert {h.chunk.source for h in everywhere} == {museum}, mode
        hits = store.search(
            "gallery repainted reopened spring visitors", vector, 3, mode, within=[library]
        )
        assert hits and {h.chunk.source for h in hits} == {library}, mode
        if mode != "text":  # full text finds only passages holding a word of the query
            assert len(hits) == min(3, held), mode
    assert store.search("gallery", vector, 3, within=[]) == []


def _source_index_files(store) -> list[Path]:
    folder = store.path / f"{store.name}.lance" / "_indices"
    return [f for f in folder.rglob("*") if f.is_file() and "bitmap" in f.name]


def test_the_source_index_is_built_by_the_writer_sealed_and_rebuilt_when_lost(
    tmp_path: Path,
) -> None:
    """A scope's prefilter reads a bitmap index on ``source``: the ingest builds it before it
    seals the table (so the seal lists its files), and a search after its files are deleted
    rebuilds it and still keeps to the scope, as doctor --repair would."""
    import shutil

    from localcrag.ingest import doctor, seal, sidecar
    from localcrag.ingest.maintain import has_source_index
    from localcrag.ingest.store import LanceStore
    from tests.support.fakes import quoting_pipeline

    docs = tmp_path / "docs"
    _two_reports(docs)
    store = quoting_pipeline(docs).library.store
    assert has_source_index(store.table)
    files = _source_index_files(store)
    sealed = seal.check(store, full=True)
    assert files and sealed.state is None and not sealed.changed and not sealed.missing
    table_dir = store.path / f"{store.name}.lance"
    listed = sidecar.read(seal.path(store))[0]["files"]
    assert {f.relative_to(table_dir).as_posix() for f in files} <= set(listed)
    library = str(docs / "library.txt")
    for f in files:
        shutil.rmtree(f.parent)
    fresh = LanceStore(store.path, store.name, store.dim)  # a new process opens it
    vector = np.ones(store.dim, dtype=np.float32)
    for mode in ("hybrid", "text"):
        hits = fresh.search("gallery attendance visitors", vector, 3, mode, within=[library])
        assert hits and {h.chunk.source for h in hits} == {library}, mode
    assert fresh.count_in([library]) == store.count_in([library]) >= 1
    assert has_source_index(fresh.table) and _source_index_files(fresh)
    assert doctor.check(fresh).ok
    for f in _source_index_files(fresh):  # lost again while the table is open
        shutil.rmtree(f.parent)
    assert fresh.count_in([library]) == store.count_in([library])  # read as it was opened
    again = LanceStore(store.path, store.name, store.dim)
    assert again.count_in([library]) == store.count_in([library]) and _source_index_files(again)


@pytest.mark.slow  # ingests and asks with the real models in subprocesses
def test_ask_and_search_in_a_scope_from_the_command_line(
    isolated_home: Path, tmp_path: Path
) -> None:
    import json

    from tests.support.cli import one_line_error, run_cli

    docs = tmp_path / "docs"
    _two_reports(docs)
    assert run_cli("ingest", str(docs), home=isolated_home).returncode == 0
    out = run_cli(
        "ask", "What was the total attendance?", "--in", str(docs / "library.txt"),
        "--offline", "--json", home=isolated_home,
    )  # fmt: skip
    data = json.loads(out.stdout)
    assert data["scope"]["files"] == [str(docs / "library.txt")]
    assert {c["source"] for c in data["citations"]} <= {str(docs / "library.txt")}
    assert "41,000" not in data["answer"]
    found = run_cli("search", "attendance", "--in", "museum.txt", "--json", home=isolated_home)
    results = json.loads(found.stdout)["results"]
    assert results and {r["source"] for r in results} == {str(docs / "museum.txt")}
    one_line_error(
        run_cli("ask", "What was the attendance?", "--in", "zoo.txt", home=isolated_home),
        "--in 'zoo.txt' matches none of the 2 indexed documents",
    )


def test_a_follow_up_without_its_conversation_says_so(tmp_path: Path) -> None:
    from localcrag.crag.pipeline import FOLLOW_UP_ALONE
    from tests.support.fakes import FakeGenerator, asked, quoting_pipeline

    docs = tmp_path / "docs"
    _two_reports(docs)
    pipe = quoting_pipeline(
        docs, FakeGenerator(), upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.1
    )
    bare = asked(pipe, "And in the year before?", alone=True)
    assert bare.answer.text == FOLLOW_UP_ALONE and bare.answer.refused and not bare.hits
    assert "-c" in bare.answer.text
    standalone = asked(pipe, "What was the total attendance?", alone=True)
    assert standalone.answer.text != FOLLOW_UP_ALONE and standalone.hits
    within = asked(pipe, "What was it?", alone=True, scope=pipe.library.scope(["museum.txt"]))
    assert within.answer.text != FOLLOW_UP_ALONE  # a scope says what "it" is about
    followed = asked(
        pipe, "And the museum?", alone=False, history=[("What was the library's attendance?", "")]
    )
    assert followed.answer.text != FOLLOW_UP_ALONE


@pytest.mark.slow  # real models in subprocesses
def test_ask_c_continues_the_last_conversation_and_keeps_its_documents(
    isolated_home: Path, tmp_path: Path
) -> None:
    import json

    from localcrag.history import History
    from localcrag.settings import Settings
    from tests.support.cli import run_cli

    docs = tmp_path / "docs"
    _two_reports(docs)
    assert run_cli("ingest", str(docs), home=isolated_home).returncode == 0
    bare = run_cli("ask", "And in the year before?", "--offline", home=isolated_home)
    assert "localcrag ask -c" in bare.stdout and bare.returncode == 0
    first = run_cli(
        "ask", "What was the total attendance?", "--in", "museum.txt", "--offline",
        home=isolated_home,
    )  # fmt: skip
    assert "41,000" in first.stdout
    follow = run_cli("ask", "-c", "And who counted it?", "--offline", "--json", home=isolated_home)
    data = json.loads(follow.stdout)
    assert data["scope"]["files"] == [str(docs / "museum.txt")]  # kept from the conversation
    assert data["rewritten"] and "attendance" in data["rewritten"]
    everywhere = run_cli(
        "ask", "-c", "And the other report?", "--everywhere", "--offline", "--json",
        home=isolated_home,
    )  # fmt: skip
    assert json.loads(everywhere.stdout)["scope"] is None
    convs = History(Settings.load().history_dir).list()
    assert [len(c.turns) for c in convs] == [3]  # the bare follow-up was not kept
    assert convs[0].turns[0].scope == [str(docs / "museum.txt")]
