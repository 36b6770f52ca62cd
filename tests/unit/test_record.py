"""RunRecord folds a real event sequence (a fake-backed Pipeline) into one set of facts,
and evidence keeps its chunk id from retrieval to AnswerDone and history."""

from __future__ import annotations

from pathlib import Path

import pytest

from localcrag import events as ev
from localcrag.crag.pipeline import Pipeline
from localcrag.history import History, Turn
from localcrag.ingest.library import Library
from localcrag.record import RunRecord
from localcrag.settings import Settings
from localcrag.types import Action
from tests.support.fakes import KIWI, FakeGenerator, FakeGrader, FakeWeb


def _pipe(library: Library, **settings) -> Pipeline:
    fixed = {
        "upper_threshold": 0.6,
        "lower_threshold": 0.35,
        "strip_threshold": 0.35,
        "offline": True,
    }
    return Pipeline(
        Settings(**{**fixed, **settings}),
        library=library,
        grader=FakeGrader(),
        generator=FakeGenerator("Cobots work next to people [1]. Also [7]."),
        web=FakeWeb(KIWI),
    )


def _fold(pipe: Pipeline, question: str, **kw) -> tuple[RunRecord, list]:
    record = RunRecord(question)
    events = list(pipe.run(question, **kw))
    changed = [record.add(e) for e in events]
    assert all(changed)  # every event the pipeline yields is a fact the record keeps
    return record, events


def test_record_folds_a_correct_run(library: Library) -> None:
    record, events = _fold(
        _pipe(library, upper_threshold=0.5), "What are cobots and where do cobots work?"
    )
    done = events[-1]
    assert record.done and record.answer is done.answer and record.evidence == done.evidence
    assert record.hits == next(e.hits for e in events if isinstance(e, ev.Retrieved))
    assert [g.chunk.chunk_id for g in record.graded] == [h.chunk.chunk_id for h in record.hits]
    assert record.action is Action.CORRECT and record.decision.upper == 0.5
    refined = next(e for e in events if isinstance(e, ev.Refined))
    assert (
        record.refined == (len(refined.strips), refined.considered)
        and record.strips == refined.strips
    )
    assert record.web_query is None and record.web_results is None and record.web_error is None
    assert record.streamed == "".join(e.text for e in events if isinstance(e, ev.Token))
    assert record.text == done.answer.text and "[7]" not in record.text
    assert {"retrieve", "grade", "refine", "generate", "first_token"} <= set(record.timings)
    assert record.stage is None and record.total_ms is not None and record.grade_errors == []
    assert record.add("not an event") is False


def test_record_keeps_web_facts_and_grade_errors(library: Library) -> None:
    pipe = _pipe(library, offline=False, web_search="always")
    record, _ = _fold(pipe, "Can kiwi birds fly?")
    assert record.action is Action.INCORRECT and record.web_query
    assert [r.url for r in record.web_results] == ["https://example.org/kiwi"]
    assert (
        record.evidence[0].url == "https://example.org/kiwi" and record.evidence[0].chunk_id is None
    )
    failing = Pipeline(
        pipe.settings,
        library=library,
        grader=FakeGrader(fail=True),
        generator=FakeGenerator("Cobots [1]."),
        web=FakeWeb(KIWI),
    )
    record, _ = _fold(failing, "What are cobots?")
    assert record.grade_errors and all("grader exploded" in g.error for g in record.grade_errors)


def test_evidence_chunk_ids_reach_answer_done_and_history(library: Library, tmp_path: Path) -> None:
    record, events = _fold(
        _pipe(library, upper_threshold=0.5), "What are cobots and where do cobots work?"
    )
    hit_ids = {h.chunk.chunk_id for h in record.hits}
    assert record.evidence and all(e.chunk_id in hit_ids for e in record.evidence)
    for e in record.evidence:  # the id names the chunk the text was refined from
        chunk = library.get_chunk(e.chunk_id)
        assert all(
            " ".join(part.split()) in " ".join(chunk.text.split()) for part in e.text.split("…")
        )
    assert record.hit_numbers() and all(ns for ns in record.hit_numbers().values())
    rag, _ = _fold(_pipe(library), "What are cobots?", mode="rag")
    assert [e.chunk_id for e in rag.evidence] == [h.chunk.chunk_id for h in rag.hits][
        : len(rag.evidence)
    ]
    history = History(tmp_path / "history")
    conv = history.create()
    history.append(conv.id, Turn.from_answer(record.answer, record.evidence))
    turn = history.load(conv.id).turns[0]
    assert [e.chunk_id for e in turn.evidence_items()] == [e.chunk_id for e in record.evidence]


def test_ask_json_keeps_its_contract_and_adds_evidence_ids(
    library: Library,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from localcrag.cli.args import Backends
    from localcrag.cli.main import main

    monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path / "home"))
    fake = Backends(pipeline=lambda settings: _pipe(library, upper_threshold=0.5))
    assert main(["ask", "What are cobots and where do cobots work?", "--json"], fake) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == [
        "question",
        "mode",
        "action",
        "reason",
        "retrieval_fallback",
        "scope",
        "thresholds",
        "binding",
        "grades",
        "grade_errors",
        "web",
        "answer",
        "refused",
        "answer_style",
        "dropped_sentences",
        "short_answer",
        "citations",
        "searched",
        "evidence",
        "timings_ms",
        "rewritten",
        "generator",
    ]  # docs/cli-json.md
    assert out["generator"] == {
        "kind": "local",
        "url": None,
        "model": "SmolLM2-135M-Instruct.Q4_1.gguf",
        "fallback": None,
        "restarted": None,
    }
    assert out["retrieval_fallback"] is None and out["refused"] is False
    assert out["thresholds"] == {"upper": 0.5, "lower": 0.35, "basis": "settings"}
    assert out["action"] == "correct" and out["web"] == {
        "attempted": False,
        "query": None,
        "results": [],
        "error": None,
    }
    assert out["citations"][0]["n"] == 1 and out["citations"][0]["source"].endswith("doc.md")
    assert out["citations"][0]["in_text"] is True
    assert out["searched"]["passages"] == len(out["grades"]) and out["searched"]["files"] == 1
    ids = {g["chunk_id"] for g in out["grades"]}
    assert out["evidence"] and all(
        e["chunk_id"] in ids and e["kind"] == "document" for e in out["evidence"]
    )
    assert out["timings_ms"]["web"] is None and out["timings_ms"]["generate"] is not None


def test_a_refusal_says_what_was_searched_and_an_answer_always_cites(
    library: Library,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A refusal lists what was searched ("N passages from M files; closest: FILE,
    p. N") in the record every front end reads; an answer whose text cites nothing still
    names the evidence it rests on, marked as not cited in the text."""
    import json

    from localcrag.cli.args import Backends
    from localcrag.cli.main import main

    refused, _ = _fold(_pipe(library), "Can kiwi birds fly?")  # offline, Incorrect: refused
    assert refused.claims_nothing and refused.sources == ()
    s = refused.searched
    assert s["passages"] == len(refused.hits) > 0 and s["files"] == 1
    best = max(refused.graded, key=lambda g: g.score)
    assert (
        s["closest"]["chunk_id"] == best.chunk.chunk_id and s["closest"]["label"] == "doc.md, p. 1"
    )
    assert s["text"] == (
        f"Searched {len(refused.hits)} passages from 1 file; closest: doc.md, p. 1 "
        f"(relevance {best.score:.2f})."
    )

    uncited = Pipeline(
        Settings(upper_threshold=0.5, lower_threshold=0.35, strip_threshold=0.35, offline=True),
        library=library,
        grader=FakeGrader(),
        generator=FakeGenerator("They work safely."),
        web=FakeWeb(KIWI),
    )
    answered, _ = _fold(uncited, "What are cobots and where do cobots work?", style="generative")
    assert (
        answered.answer.citations == () and not answered.claims_nothing
    )  # the text cites nothing...
    assert (
        answered.sources_inferred and len(answered.sources) == 1
    )  # ... the record still names its source
    assert answered.sources[0].n in {e.n for e in answered.evidence}

    monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path / "home"))
    fake = Backends(pipeline=lambda settings: _pipe(library))
    assert main(["ask", "Can kiwi birds fly?"], fake) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(s["text"]) and "Sources" not in out
    assert main(["ask", "Can kiwi birds fly?", "--json"], fake) == 0
    assert json.loads(capsys.readouterr().out)["searched"]["text"] == s["text"]
    fake = Backends(pipeline=lambda settings: uncited)
    assert (
        main(["ask", "What are cobots and where do cobots work?", "--style", "generative"], fake)
        == 0
    )
    assert (
        "Sources (not cited in the text; the passage the answer shares the most words with):\n  ["
        in capsys.readouterr().out
    )
