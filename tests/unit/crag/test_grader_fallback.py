"""A grader that fails as a whole: retrieval order for real, said in the decision, the
answer, `ask` (text and --json) and the TUI trace; never a refusal from ungraded chunks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localcrag import events as ev
from localcrag.cli.args import Backends
from localcrag.cli.main import build_parser
from localcrag.crag.answer.generate import REFUSAL
from localcrag.crag.graders.base import RANK_GRADER, BaseGrader, GradingFailed
from localcrag.crag.pipeline import Pipeline
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from localcrag.types import Action
from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader, chunk


def _pipe(library: Library, grader=None) -> Pipeline:
    s = Settings(offline=True)  # the shipped thresholds
    return Pipeline(
        s,
        library=library,
        grader=grader or FakeGrader(fail=True),
        generator=FakeGenerator("Cobots work next to people [1]."),
    )


def test_a_failed_grader_answers_from_retrieval_order_and_says_so(library: Library) -> None:
    s = Settings()
    evs = list(_pipe(library).run("Which robots work next to people?"))
    hits = next(e for e in evs if isinstance(e, ev.Retrieved)).hits
    grades = [e.grade for e in evs if isinstance(e, ev.ChunkGraded)]
    assert [g.chunk.chunk_id for g in grades] == [h.chunk.chunk_id for h in hits]
    assert all(g.grader == RANK_GRADER and "grader exploded" in g.error for g in grades)
    scores = [g.score for g in grades]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)  # rank order
    assert all(
        s.evaluator.lower_threshold < x < s.evaluator.upper_threshold for x in scores
    )  # no verdict either way
    decision = next(e for e in evs if isinstance(e, ev.DecisionMade)).decision
    assert decision.action is Action.AMBIGUOUS
    assert "could not be graded" in decision.reason and "grader exploded" in decision.reason
    done = evs[-1]
    assert not done.answer.refused and "do not answer" not in done.answer.text
    assert done.answer.text.startswith("Cobots work next to people")
    assert "could not be graded" in done.answer.text and "retrieval order" in done.answer.text
    assert "".join(e.text for e in evs if isinstance(e, ev.Token)).strip() == done.answer.text
    assert [e.text for e in done.evidence] == [h.chunk.text for h in hits]  # whole chunks, in order
    assert not any(isinstance(e, ev.Refined) for e in evs)  # nothing to refine with


def test_a_question_the_documents_miss_is_not_refused_when_nothing_was_graded(
    library: Library,
) -> None:
    graded = list(_pipe(library, FakeGrader()).run("Who painted the sunflowers?"))[-1]
    assert graded.answer.refused  # with a working grader: Incorrect, refused offline
    failed = list(_pipe(library).run("Who painted the sunflowers?"))[-1]
    assert failed.answer.action is Action.AMBIGUOUS and not failed.answer.refused
    assert not failed.answer.text.startswith(REFUSAL)


class _Broken(BaseGrader):
    name = "broken"

    def _score_batch(self, question, texts):  # noqa: ANN001, ANN202
        raise ValueError("no scores today")


def test_a_chunk_with_no_score_at_all_fails_the_batch_not_scores_zero() -> None:
    with pytest.raises(GradingFailed, match="no scores today"):
        _Broken().grade("q", [chunk("text one"), chunk("text two", "c2")])
    assert _Broken().score_texts("q", ["a", "b"]) == [0.0, 0.0]  # strips: dropped first, no crash


def _ask(library: Library, monkeypatch: pytest.MonkeyPatch, capsys, as_json: bool) -> str:
    from localcrag.cli import ask

    args = build_parser(Backends(pipeline=lambda settings: _pipe(library))).parse_args(
        ["ask", "Which robots work next to people?", "--offline", *(["--json"] if as_json else [])]
    )
    assert ask.cmd_ask(args) == 0
    out = capsys.readouterr()
    return out.out


def test_ask_prints_the_grade_errors(
    library: Library, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    out = _ask(library, monkeypatch, capsys, as_json=False)
    assert "Grading failed for 2 of 2 chunks: RuntimeError: grader exploded" in out
    assert "could not be graded" in out and "Decision: AMBIGUOUS" in out


def test_ask_json_carries_the_grade_errors(
    library: Library, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    data = json.loads(_ask(library, monkeypatch, capsys, as_json=True))
    assert data["action"] == "ambiguous" and "could not be graded" in data["reason"]
    assert data["grade_errors"] == [
        f"2 of 2 chunks: RuntimeError: grader exploded (scored by: {RANK_GRADER})"
    ]
    assert all(
        g["error"] == "RuntimeError: grader exploded" and g["grader"] == RANK_GRADER
        for g in data["grades"]
    )
    assert "could not be graded" in data["answer"]


def test_the_trace_shows_the_failure(library: Library) -> None:
    pytest.importorskip("textual")
    from rich.console import Console

    from localcrag.tui.widgets.trace import TraceState, render_trace

    state = TraceState(question="Which robots work next to people?")
    for e in _pipe(library).run(state.question):
        state.add(e)
    console = Console(width=100, record=True)
    console.print(render_trace(state, 0.76, 0.51))
    text = " ".join(console.export_text().split())
    assert "retrieval order, not graded" in text
    assert "grading failed for 2 of 2: RuntimeError: grader exploded" in text
    assert "could not be graded" in text  # the decision reason


def test_a_gguf_grader_with_a_corrupt_model_says_fusion_scored(tmp_path: Path) -> None:
    """A GGUF grader with a corrupt GGUF used the fusion scores silently."""
    from localcrag.cli.ask import to_json
    from localcrag.crag.grade import make_grader
    from localcrag.record import RunRecord

    bad = tmp_path / "grader.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)  # a header and nothing else
    g = make_grader(Settings(grader="llm", grader_llm=str(bad)), FakeEmbedder(), None)
    chunks = [chunk("Cobots work next to people."), chunk("Rain falls from clouds.", "c2")]
    grades = g.grade("Where do cobots work?", chunks)
    assert all(gr.grader == "fusion" and "grader.gguf" in gr.error for gr in grades), grades
    record = RunRecord("Where do cobots work?", "crag")
    for i, gr in enumerate(grades):
        record.add(ev.ChunkGraded(gr, i, len(grades)))
    assert to_json(record)["grade_errors"][0].startswith("2 of 2 chunks: ")
    assert to_json(record)["grade_errors"][0].endswith("(scored by: fusion)")


def test_ask_without_a_terminal_never_looks_up_the_search_host(
    library: Library, no_network: list[str], monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Default settings (web_search = "ask") and no terminal: consent can never be
    given, so no DNS lookup of duckduckgo.com (the conftest guard records any) and the refusal
    says why."""
    from localcrag.cli import ask

    pipe = Pipeline(
        Settings(), library=library, grader=FakeGrader(fixed={}), generator=FakeGenerator()
    )
    args = build_parser(Backends(pipeline=lambda settings: pipe)).parse_args(
        ["ask", "Who painted the sunflowers?", "--json"]
    )
    assert ask.cmd_ask(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["action"] == "incorrect" and data["refused"] and data["web"]["attempted"] is False
    assert "nobody to ask for consent" in data["answer"]
    assert no_network == []


def test_a_grading_failure_is_never_followed_by_a_confident_decision() -> None:
    """A run that says "Grading failed for 5 of 5 chunks" then "Decision: CORRECT" must not happen:
    a fallback score decides nothing; only a chunk that was graded can make a run Correct."""
    from localcrag.crag.decide import decide
    from localcrag.types import Grade

    c = [chunk(f"text {i}", f"c{i}") for i in range(3)]
    failed = [Grade(x, 0.95, "lexical", error="fusion failed: NaN") for x in c]
    d = decide(failed, 0.7, 0.3)
    assert d.action is Action.AMBIGUOUS and "grading failed for 3 of 3 chunks" in d.reason
    low = [Grade(x, 0.05, "lexical", error="fusion failed: NaN") for x in c]
    assert decide(low, 0.7, 0.3).action is Action.AMBIGUOUS  # nor Incorrect on unverified scores
    mixed = [Grade(c[0], 0.9, "fusion"), *failed[1:]]
    d = decide(mixed, 0.7, 0.3)
    assert d.action is Action.CORRECT and "1 graded chunk(s)" in d.reason and "2 of 3" in d.reason
    assert decide([Grade(c[0], 0.5, "fusion"), *failed[1:]], 0.7, 0.3).action is Action.AMBIGUOUS
