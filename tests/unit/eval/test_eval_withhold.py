"""`localcrag eval --only decisions --withhold gold`: withheld chunks never reach the grader,
the search still returns k chunks, and the report carries the refused share, overall and where
the answer was nowhere left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localcrag.cli import eval as eval_cli
from localcrag.cli.main import main
from localcrag.crag.pipeline import Pipeline
from localcrag.eval.metrics import answer_seen
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader

NEIGHBOURS = {  # on-topic notes beside the generic set's two gold notes, so withholding one leaves some
    "robots": [
        "Cobots in factories are programmed by demonstration rather than code.",
        "Industrial robots in factories are fenced off from people for safety.",
    ],
    "weather": [
        "Clouds form when water vapour cools into droplets.",
        "Rain gauges measure how much water falls from clouds.",
    ],
}


class RecordingGrader(FakeGrader):
    """Remembers every chunk it was asked to grade, per question."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, list[str]]] = []

    def grade(self, question, chunks):
        self.seen.append((question, [c.source for c in chunks]))
        return super().grade(question, chunks)


@pytest.fixture()
def corpus(generic: Path) -> Path:
    for topic, texts in NEIGHBOURS.items():
        for i, text in enumerate(texts, 1):
            (generic / "docs" / f"{topic}{i}.md").write_text(f"# {topic} {i}\n\n{text}\n")
    return generic


@pytest.fixture()
def graders(monkeypatch: pytest.MonkeyPatch) -> list[RecordingGrader]:
    made: list[RecordingGrader] = []

    def factory(settings):
        made.append(RecordingGrader())
        return Pipeline(
            settings,
            library=Library(settings, embedder=FakeEmbedder()),
            grader=made[-1],
            generator=FakeGenerator("unused"),
        )

    monkeypatch.setattr(eval_cli, "pipeline_factory", factory)
    return made


def test_withheld_units_never_reach_grading(
    graders, corpus: Path, capsys, isolated_home: Path
) -> None:
    assert (
        main(
            ["eval", str(corpus), "--only", "decisions", "--withhold", "gold", "--json", "-k", "3"]
        )
        == 0
    )
    d = json.loads(capsys.readouterr().out)["decisions"]
    calls = graders[0].seen
    assert len(calls) == 3 + 2  # the normal run (3 questions), then the 2 answerable ones withheld
    normal, withheld = calls[:3], calls[3:]
    assert any(s.endswith("/robots.md") for s in normal[0][1])  # the gold note is found normally
    for (question, sources), topic in zip(withheld, ("robots", "weather")):
        # the product's graded pool (graded_pool >= k): here every chunk there is, less the
        # withheld one
        assert len(sources) == len(normal[0][1]) - 1 >= 3
        assert not any(s.endswith(f"/{topic}.md") for s in sources), (question, sources)
        assert any(s.endswith(f"/{topic}1.md") for s in sources)  # on-topic neighbours remain
    w = d["withheld"]
    assert (
        w["what"] == "gold" and w["questions"] == 2 and w["skipped"] == 0 and w["gold_graded"] == 0
    )
    assert all(it["gold_graded"] is False for it in w["items"])
    assert [it["gold_graded"] for it in d["items"]] == [True, True, None]
    assert d["answerable"]["answer_seen_when_gold_graded"] == 1.0
    assert w["chunks_withheld_mean"] == 1.0
    assert w["correct"] + w["ambiguous"] + w["incorrect"] == 2
    assert set(w["best_quantiles"]) == {"p10", "p25", "p50", "p75", "p90"}
    for key in (
        "refused_share",
        "ambiguous_share",
        "correct_share",
        "answer_seen_share",
        "refused_share_answer_unseen",
        "grade_ms_per_question",
    ):
        assert key in w
    assert [it["withheld"] for it in w["items"]] == [1, 1]
    assert d["answerable"]["answer_seen_share"] == 1.0  # normal run: the answer text was graded
    assert w["answer_seen_share"] == 0.0  # withheld: it is nowhere else in this corpus
    assert d["goal"]["answered_share"] == d["answerable"]["answered_share"]
    assert d["goal"]["withheld_refused_share"] == w["refused_share"]
    assert (
        0.0 <= d["goal"]["auc_full_vs_withheld"] <= 1.0
        and d["goal"]["in_sample_refused_at_90"] is not None
    )

    assert main(["eval", str(corpus), "--only", "decisions", "--withhold", "gold", "-k", "3"]) == 0
    text = capsys.readouterr().out
    assert (
        "gold withheld (2 answerable questions" in text
        and "goals: answered" in text
        and "(>= 0.9), refused with the gold withheld" in text
    )


def test_withhold_needs_the_decisions_part(graders, corpus: Path, capsys) -> None:
    assert main(["eval", str(corpus), "--withhold", "gold"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "add --only decisions" in err[0]


def test_store_search_drops_withheld_chunks_in_every_mode(
    corpus: Path, isolated_home: Path
) -> None:
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([corpus / "docs"])
    store = lib.store
    query = "Where do cobots work in factories?"
    vec = lib.embedder.embed([query])[0]
    for mode in ("hybrid", "vector", "text"):
        top = store.search(query, vec, 6, mode)
        assert top, mode
        gone = {top[0].chunk.chunk_id, top[1].chunk.chunk_id}
        kept = store.search(query, vec, 4, mode, withhold=gone)
        assert not gone & {h.chunk.chunk_id for h in kept}, mode
        if mode != "text":  # full-text search only returns chunks sharing a word with the query
            assert len(kept) == 4, mode
        assert [h.rank for h in kept] == list(range(len(kept)))


def test_answer_seen_short_and_long_answers() -> None:
    assert answer_seen(["the Normans"], ["They were Normans, from Normandy."])
    assert not answer_seen(["Normans"], ["Normandy was theirs."])  # whole words only
    long = "Claude can read a PDF of up to one hundred pages in a single request"
    assert answer_seen(
        [long], ["Note: one hundred pages in a single request is the limit."]
    )  # a 6-word run
    assert not answer_seen([long], ["a single request"])
    assert not answer_seen([], ["anything"])
