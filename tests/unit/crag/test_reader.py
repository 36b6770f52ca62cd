"""The reader: windows, the visible fallback, answer spans in quoted answers, and the shipped
model with its shipped calibration on real pairs it never trained on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localcrag.crag.answer.extract import extractive_answer
from localcrag.crag.grade import make_grader
from localcrag.crag.graders.reader import (
    MODEL_FILE,
    ReaderGrader,
    ReaderModel,
    Span,
    packaged,
    read_sidecar,
)
from localcrag.eval.metrics import roc_auc
from localcrag.settings import LOWER_THRESHOLD, UPPER_THRESHOLD, Settings
from localcrag.types import Chunk, Evidence
from tests.support.fakes import FakeEmbedder

PARAGRAPH = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France. They were descended from Norse raiders and pirates from "
    "Denmark, Iceland and Norway who, under their leader Rollo, agreed to swear fealty to "
    "King Charles III of West Francia. Their identity emerged in the first half of the 10th "
    "century."
)
QUESTION = "Who was the leader of the Norse raiders?"
SHIPPED = packaged(MODEL_FILE)


def chunk(text: str) -> Chunk:
    return Chunk("c0", "/docs/a.md", text, 1, 1, 0, len(text))


def evidence(n: int, text: str, score: float = 0.9) -> Evidence:
    return Evidence(n=n, text=text, source=f"/docs/{n}.md", page=1, score=score)


# --- windows -------------------------------------------------------------------------------------


def test_a_short_passage_is_one_window_and_a_long_one_is_read_in_overlapping_sentence_runs() -> (
    None
):
    model = ReaderModel(SHIPPED)
    assert model.windows(QUESTION, PARAGRAPH) == [(0, len(PARAGRAPH))]
    long = " ".join(
        f"Sentence number {i} talks about the harbour of town {i} and its {i} ships."
        for i in range(60)
    )
    wins = model.windows(QUESTION, long)
    assert len(wins) > 2
    assert wins[0][0] == 0 and wins[-1][1] == len(long.rstrip()) or wins[-1][1] >= len(long) - 1
    for (_a1, b1), (a2, b2) in zip(wins, wins[1:]):
        assert a2 < b1 and b1 <= b2  # neighbours share a sentence; every window moves on
    tok = model._tok
    for a, b in wins:  # each window fits beside the question
        assert len(tok.encode(QUESTION, long[a:b]).ids) <= model.max_tokens


# --- fallback ------------------------------------------------------------------------------------


def test_a_missing_reader_falls_back_to_the_fusion_and_says_so(tmp_path: Path) -> None:
    g = make_grader(
        Settings(grader="reader", grader_model=str(tmp_path / "gone.onnx")), FakeEmbedder()
    )
    assert isinstance(g, ReaderGrader) and not g.available
    fusion = make_grader(Settings(grader="fusion"), FakeEmbedder())
    grades = g.grade(QUESTION, [chunk(PARAGRAPH)])
    assert (
        grades[0].error
        and "reader unavailable" in grades[0].error
        and "gone.onnx" in grades[0].error
    )
    assert grades[0].grader == "fusion"
    assert grades[0].score == pytest.approx(fusion.grade(QUESTION, [chunk(PARAGRAPH)])[0].score)
    assert g.answer_spans(QUESTION, [PARAGRAPH]) == [None]


# --- answer spans in the quoted answer ---------------------------------------------------------------


def spans_at(word: str, margin: float = 5.0):
    """A fake reader: the last occurrence of ``word`` in each text is its answer span."""

    def read(question: str, texts: list[str]) -> list[Span | None]:
        out = []
        for t in texts:
            at = t.rfind(word)
            out.append(Span(at, at + len(word), margin) if at >= 0 else None)
        return out

    return read


def test_the_quote_emphasises_the_readers_span_in_its_lead_sentence() -> None:
    ev = [evidence(1, PARAGRAPH)]
    plain = extractive_answer(QUESTION, ev)
    out = extractive_answer(QUESTION, ev, read_spans=spans_at("Rollo"))
    assert out.span == "Rollo" and "under their leader **Rollo**" in out.text
    assert out.sentences == plain.sentences and out.cited == (1,)  # the same sentences are quoted
    assert out.text.replace("**", "") == plain.text.replace("**", "")  # verbatim either way


def test_a_span_made_of_the_questions_own_words_is_never_the_answer() -> None:
    ev = [evidence(1, PARAGRAPH)]
    out = extractive_answer(QUESTION, ev, read_spans=spans_at("Norse raiders"))
    assert out.span != "Norse raiders" and "**Norse raiders**" not in out.text


def test_without_a_span_the_answer_is_todays_sentence_quote() -> None:
    ev = [evidence(1, PARAGRAPH)]
    assert extractive_answer(
        QUESTION, ev, read_spans=lambda q, ts: [None] * len(ts)
    ) == extractive_answer(QUESTION, ev)


# --- the shipped reader, with its shipped calibration, on real pairs ----------------------------------


@pytest.fixture(scope="module")
def shipped_grader(real_embedder) -> ReaderGrader:  # noqa: ANN001
    g = make_grader(Settings(grader="reader"), real_embedder)
    assert isinstance(g, ReaderGrader) and g.available, "the reader ships as package data"
    return g


def test_the_shipped_sidecar_records_how_it_was_made() -> None:
    meta = read_sidecar(SHIPPED)
    assert SHIPPED.stat().st_size < 30e6
    assert meta["trained_on"]["data"].startswith("../shared/data/qa-pairs ship_ok")
    assert meta["calibration"]["features"][0] == "reader"
    assert meta["trained_on_families"] and "subjqa" not in meta["trained_on_families"]
    assert set(meta["trained_on"]["excluded_families"]) == {"medquad", "policyqa", "covid_qa"}
    assert not set(meta["trained_on_families"]) & set(meta["trained_on"]["excluded_families"])
    rows = meta["held_out"]["rows"]  # what it was measured on, and that it never trained on it
    assert {r["kind"] for r in rows.values()} == {"eval-only", "left out"}
    assert all(fam not in meta["trained_on_families"] for fam in rows)


def test_the_shipped_reader_tells_answer_bearing_passages_from_on_topic_ones(
    shipped_grader, shared_data
) -> None:  # noqa: ANN001
    """Real pairs of two evaluation-only sources (never trained on; answer-sentence selection,
    where the reader measured above the fusion), 15 of each label each,
    scored alone as `localcrag eval` scores them, through the shipped thresholds."""
    import gzip
    import random

    rows = [
        json.loads(line) for line in gzip.open(shared_data / "qa-pairs" / "pairs.jsonl.gz", "rt")
    ]
    rng = random.Random(7)
    pos, neg = [], []
    for fam in ("wikiqa", "trecqa"):
        fam_rows = [r for r in rows if r["source"].split("/")[0] == fam]
        for label, out in ((1, pos), (0, neg)):
            picked = rng.sample([r for r in fam_rows if r["label"] == label], 15)
            out += [shipped_grader.score_texts(r["question"], [r["passage"]])[0] for r in picked]
    assert roc_auc(pos, neg) > 0.75
    answered = sum(s >= LOWER_THRESHOLD for s in pos) / len(pos)
    refused = sum(s < LOWER_THRESHOLD for s in neg) / len(neg)
    # measured 2026-12-01: AUC above 0.75, answered 0.67, refused 0.90 (a pair alone: the cut
    # points were fitted on the best of five retrieved passages, so one passage answers less)
    assert answered >= 0.55 and refused >= 0.75, (answered, refused)
    assert UPPER_THRESHOLD > LOWER_THRESHOLD


def test_the_shipped_reader_finds_the_answer_span(shipped_grader) -> None:  # noqa: ANN001
    spans = shipped_grader.reader.read(QUESTION, [PARAGRAPH])
    span = spans[0].span
    assert span is not None and "Rollo" in PARAGRAPH[span.start : span.end]


def test_the_reader_asks_for_exact_int8_sums_where_the_cpu_saturates() -> None:
    """Its int8 MatMuls would saturate on x86 without VNNI as the embedder's did."""
    from localcrag.models.embed_onnx import saturating_int8
    from tests.support.onnx import precise

    model = ReaderModel()
    model.load()
    assert precise(model._session.get_session_options()) == saturating_int8()
