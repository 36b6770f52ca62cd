"""Per-corpus calibration of the thresholds (localcrag/crag/calibrate.py, probes.py).

No model: the probes are text, the grader is the lexical one (a fitted logistic over word
coverage) and the search ranks a small fixture corpus by shared terms.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from localcrag.crag import calibrate as cal
from localcrag.crag.graders.base import calibration
from localcrag.crag.graders.fast import LexicalGrader
from localcrag.crag.graders.text import CorpusStats
from localcrag.crag.probes import ablate, make_probes, template_probes
from localcrag.settings import Settings
from localcrag.textutil import terms
from localcrag.types import Chunk

CORPUS = [
    "The harbour of Valdmora was dredged in 1887 by the city council. Ships of deeper draught "
    "could then reach the inner quay. The quay is still used by ferries today.",
    "Marta Quillon designed the northern lighthouse after a storm wrecked three vessels. The "
    "lighthouse stands on a granite ledge above the channel. Its lamp was electrified later.",
    "A tide gauge is a device that records the height of the sea every few minutes. The gauge "
    "at Valdmora has run since the harbour opened. Engineers read it before every dredging.",
    "The ferry company operates 14 crossings per day in summer. In winter the timetable falls to "
    "six crossings because of storms. Tickets are sold at the quay office.",
    "Kelp farming began in the bay when Oskar Tennet leased the shallow beds. The farm harvests "
    "in late spring. Most of the kelp is dried and sold as fertiliser to inland growers.",
    "The fish market opens at five in the morning on weekdays. Traders from the valley towns "
    "buy most of the catch. The market hall was rebuilt in 1923 after a fire destroyed it.",
]


def _chunks() -> list[Chunk]:
    return [Chunk(f"c{i}", f"/docs/{i}.md", t, 1, 1, 0, len(t), "") for i, t in enumerate(CORPUS)]


def _search(question: str) -> list[Chunk]:
    q = set(terms(question))
    return sorted(_chunks(), key=lambda c: (-len(q & set(terms(c.text))), c.chunk_id))[:3]


def _grader() -> LexicalGrader:
    return LexicalGrader(calibration("lexical"), CorpusStats.from_texts(CORPUS))


def test_template_probes_name_their_answer() -> None:
    got = template_probes("The market hall was rebuilt in 1923 after a fire destroyed it.")
    assert (
        "The market hall was rebuilt in what year after a fire destroyed it?",
        "year",
        "1923",
    ) in got
    defs = template_probes("A harbour tide gauge is a device that records the height of the sea.")
    assert defs[0] == (
        "What is harbour tide gauge?",
        "definition",
        "device that records the height of the sea",
    )


def test_probes_are_seeded_and_independent_of_index_order() -> None:
    a = make_probes(CORPUS, 4, seed=0)
    shuffled = CORPUS[:]
    random.Random(5).shuffle(shuffled)
    b = make_probes(shuffled, 4, seed=0)
    assert [p.question for p in a] == [p.question for p in b] and len(a) == 4
    assert all(p.sentence in CORPUS[p.source] for p in a)
    assert [p.question for p in make_probes(CORPUS, 4, seed=0)] == [p.question for p in a]


def test_ablation_cuts_the_sentence_or_refuses() -> None:
    sent = "The market hall was rebuilt in 1923 after a fire destroyed it."
    cut = ablate(CORPUS[5], sent)
    assert cut is not None and "1923" not in cut and cut.startswith("The fish market")
    assert ablate(CORPUS[5], "A sentence that is not there.") is None
    assert ablate(sent + " " + sent.replace("fire", "blaze"), sent) is None  # the answer survives


def test_measure_is_deterministic_on_a_fixture_corpus() -> None:
    a = cal.measure(_grader(), _search, CORPUS, n=6, seed=0)
    b = cal.measure(_grader(), _search, CORPUS, n=6, seed=0)
    assert (a.own, a.foreign, a.ablated, a.own_missed) == (
        b.own,
        b.foreign,
        b.ablated,
        b.own_missed,
    )
    assert len(a.own) + a.own_missed == len(make_probes(CORPUS, 6, 0))
    assert a.own and a.foreign  # pydoc_data ships with Python: foreign probes exist
    assert min(a.own) > max(a.foreign)  # own questions are answered by their chunk, foreign not


def test_inverse_map_is_identity_on_the_reference_and_monotone() -> None:
    ref = (0.2, 0.9)
    assert cal._inverse(0.51, ref, ref) == pytest.approx(0.51)
    lifted = (0.3, 0.95)  # a corpus that scores everything higher
    xs = [cal._inverse(t / 20, lifted, ref) for t in range(21)]
    assert xs == sorted(xs) and xs[0] == 0.0 and xs[-1] == pytest.approx(1.0)
    assert cal._inverse(0.51, lifted, ref) > 0.51


def _stats(own: float, foreign: float, n: int = 10) -> cal.ProbeStats:
    return cal.ProbeStats(own=(own,) * n, foreign=(foreign,) * n)


def test_calibrated_thresholds_follow_the_corpus_scale() -> None:
    s = Settings(calibrate=True)
    ref = {"graders": {"fusion": {"own": 0.95, "foreign": 0.2}}}
    th = cal.calibrated(s, _stats(0.95, 0.2), ref)
    assert th.calibrated and (th.upper, th.lower, th.strip) == pytest.approx(
        (s.evaluator.upper_threshold, s.evaluator.lower_threshold, s.evaluator.strip_threshold)
    )
    low = cal.calibrated(s, _stats(0.8, 0.1), ref)  # everything scores lower here
    assert (
        low.calibrated
        and low.lower < s.evaluator.lower_threshold
        and low.upper < s.evaluator.upper_threshold
    )
    assert low.lower <= low.upper and "calibrated on this corpus" in low.basis
    expected = 0.1 + (0.8 - 0.1) * (s.evaluator.lower_threshold - 0.2) / (0.95 - 0.2)
    assert low.lower == pytest.approx(expected)


@pytest.mark.parametrize(
    "stats, reason",
    [
        (_stats(0.9, 0.2, n=3), "too few probes"),
        (_stats(0.3, 0.4), "do not separate"),
    ],
)
def test_no_calibration_without_enough_evidence(stats: cal.ProbeStats, reason: str) -> None:
    s = Settings(calibrate=True)
    th = cal.calibrated(s, stats, {"graders": {"fusion": {"own": 0.95, "foreign": 0.2}}})
    assert not th.calibrated and reason in th.basis and th.lower == s.evaluator.lower_threshold
    none = cal.calibrated(s, _stats(0.9, 0.2), {"graders": {}})
    assert not none.calibrated and "no reference calibration" in none.basis


def test_shipped_reference_names_the_default_grader() -> None:
    ref = cal.load_reference()
    entry = ref["graders"][Settings().evaluator.grader]
    assert 0.0 < entry["foreign"] < entry["own"] < 1.0 and "no question" in ref["corpus"]


def test_cache_is_keyed_by_index_version(tmp_path: Path) -> None:
    calls = []

    def compute() -> cal.ProbeStats:
        calls.append(1)
        return cal.ProbeStats(own=(0.9,), foreign=(0.1,), key=f"v{len(calls)}")

    path = tmp_path / "calibration-fusion.json"
    first = cal.cached(path, "v1", compute)
    again = cal.cached(path, "v1", compute)
    assert first == again and len(calls) == 1 and json.loads(path.read_text())["key"] == "v1"
    cal.cached(path, "v2", compute)
    assert len(calls) == 2


def test_off_by_default_uses_the_settings() -> None:
    s = Settings()
    assert s.evaluator.calibrate is False  # off by default: no library is read
    th = cal.corpus_thresholds(s, library=None, grader=None)
    assert (th.upper, th.lower, th.basis) == (
        s.evaluator.upper_threshold,
        s.evaluator.lower_threshold,
        "settings",
    )


def test_pipeline_uses_and_reports_the_thresholds_it_decided_with(library) -> None:
    """With calibrate on and a library too small to probe, the settings' thresholds apply,
    the decision says so (trace, ask --json), the probes are cached, and an unanswerable
    question is still refused."""
    from localcrag.cli.ask import to_json
    from localcrag.crag.pipeline import Pipeline
    from localcrag.record import RunRecord
    from localcrag.types import Action
    from tests.support.fakes import FakeGenerator, FakeGrader

    s = Settings(
        calibrate=True,
        offline=True,
        upper_threshold=0.6,
        lower_threshold=0.35,
        strip_threshold=0.35,
    )
    pipe = Pipeline(s, library=library, grader=FakeGrader(), generator=FakeGenerator())
    record = RunRecord("Which volcano erupted on Saturn's moon Titan?")
    for e in pipe.run(record.question):
        record.add(e)
    assert record.decision.action is Action.INCORRECT and record.answer.refused
    assert record.decision.basis.startswith("settings (too few probes"), record.decision.basis
    assert (record.decision.upper, record.decision.lower) == (0.6, 0.35)
    assert to_json(record)["thresholds"] == {
        "upper": 0.6,
        "lower": 0.35,
        "basis": record.decision.basis,
    }
    assert (Path(s.index_dir) / "calibration-fusion.json").is_file()


def test_the_trace_names_calibrated_thresholds() -> None:
    pytest.importorskip("textual")
    from rich.console import Console

    from localcrag.crag.decide import decide
    from localcrag.events import DecisionMade
    from localcrag.tui.widgets.trace import TraceState, render_trace

    state = TraceState(question="When was the quay built?")
    state.add(
        DecisionMade(
            decide([], 0.7, 0.42, "calibrated on this corpus (40 own / 30 foreign probes)")
        )
    )
    console = Console(width=120, record=True)
    console.print(render_trace(state, 0.76, 0.51))
    text = " ".join(console.export_text().split())
    assert "thresholds 0.42 / 0.70: calibrated on this corpus (40 own / 30 foreign probes)" in text
