"""The shipped default grader with the shipped thresholds, on the real int8 ONNX embedder:
the CRAG decision for a few val.json questions over AI_Information.pdf (hybrid retrieval,
as `ask` does). Follows whatever grader ``Settings()`` defaults to.

Questions: the first two answerable and the first two unanswerable items of val.json in
file order (chosen by position, not by outcome); the DAC item is labelled answerable but
the PDF never mentions DAC (shared/data/README.md), so it counts as unanswerable.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from localcrag.crag.calibrate import corpus_thresholds
from localcrag.crag.decide import decide
from localcrag.crag.grade import CorpusStats, make_grader
from localcrag.crag.retrieve import Retriever
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from localcrag.types import Action

pytestmark = (
    pytest.mark.slow
)  # ~7 s wall here (ONNX load + ingest of the PDF), 4 s CPU; calibrated +7 s

NOT_ANSWERABLE = {"What is Direct Air Capture (DAC) used for?"}


@pytest.fixture(scope="module", params=["default", "calibrated"])
def decisions(
    request: pytest.FixtureRequest,
    ai_pdf: Path,
    real_embedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict:
    """Decisions with the real default settings, and with ``calibrate`` on (thresholds
    carried to this PDF by probes over its own chunks; localcrag/crag/calibrate.py)."""
    from localcrag.models.embed_onnx import OnnxEmbedder

    assert isinstance(real_embedder, OnnxEmbedder)  # the default backend, int8 ONNX
    items = json.loads((ai_pdf.parent / "val.json").read_text(encoding="utf-8"))
    answerable = [
        i["question"] for i in items if i["has_answer"] and i["question"] not in NOT_ANSWERABLE
    ]
    unanswerable = [
        i["question"] for i in items if not i["has_answer"] or i["question"] in NOT_ANSWERABLE
    ]
    mp = pytest.MonkeyPatch()
    mp.setenv("LOCALCRAG_HOME", str(tmp_path_factory.mktemp("grader-home")))
    try:
        s = Settings() if request.param == "default" else Settings(calibrate=True)
        lib = Library(s, embedder=real_embedder)
        assert not lib.ingest([ai_pdf]).failed
        store = lib.store
        stats = dataclasses.replace(
            CorpusStats.from_texts(store.all_texts()), centroid=store.centroid()
        )
        grader = make_grader(s, real_embedder, stats)
        th = corpus_thresholds(s, lib, grader)
        assert th.calibrated == s.evaluator.calibrate, (
            th.basis
        )  # on: the probes supported a map here
        out = {}
        for q in answerable[:2] + unanswerable[:2]:
            hits = Retriever(s, lib).search(q, k=s.retrieval.top_k)
            grades = grader.grade(q, [h.chunk for h in hits])
            assert not any(g.error for g in grades), [g.error for g in grades]
            out[q] = (q in answerable, decide(grades, th.upper, th.lower, th.basis))
        return out
    finally:
        mp.undo()


def test_answerable_questions_are_answered_from_the_documents(decisions: dict) -> None:
    got = {q: d.action.value for q, (ok, d) in decisions.items() if ok}
    assert len(got) == 2
    assert all(a in ("correct", "ambiguous") for a in got.values()), got  # eval's decision rule
    assert any(a == "correct" for a in got.values()), got


def test_unanswerable_questions_are_incorrect(decisions: dict) -> None:
    got = {
        q: (d.action.value, round(d.best_score, 3)) for q, (ok, d) in decisions.items() if not ok
    }
    assert len(got) == 2
    assert all(a == Action.INCORRECT.value for a, _ in got.values()), got
