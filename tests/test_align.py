"""The align evaluator: token-alignment features, the shipped head, its registry entry,
the visible fallback, and a deterministic training script."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from localcrag.crag.grade import make_grader
from localcrag.crag.graders.align import AlignGrader, load_head
from localcrag.crag.graders.align_features import FEATURES, Encoded, alignment, answer_shape
from localcrag.crag.graders.text import CorpusStats
from localcrag.settings import GRADERS, Settings
from localcrag.types import Chunk
from tests.fakes import FakeEmbedder
from tests.scriptload import load_script

REPO = Path(__file__).resolve().parents[1]
PARAGRAPH = ("The Normans were the people who in the 10th and 11th centuries gave their name to "
             "Normandy, a region in France. They were descended from Norse raiders and pirates from "
             "Denmark, Iceland and Norway who, under their leader Rollo, agreed to swear fealty to "
             "King Charles III of West Francia. Their identity emerged in the first half of the 10th "
             "century.")
ABLATED = ("The Normans were the people who in the 10th and 11th centuries gave their name to "
           "Normandy, a region in France. Their identity emerged in the first half of the 10th century.")
QUESTION = "Who was the leader of the Norse raiders?"


def chunk(text: str) -> Chunk:
    return Chunk("c0", "/docs/a.md", text, 1, 1, 0, len(text))


def fake(text: str, words: list[str], vecs: list[list[float]]) -> Encoded:
    v = np.array(vecs, np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    offs, pos = [], 0
    for w in words:
        pos = text.index(w, pos)
        offs.append((pos, pos + len(w)))
        pos += len(w)
    return Encoded(v, tuple(words), tuple(offs), text)


def test_registry_entry_and_head_file() -> None:
    assert "align" in GRADERS and "align" in Settings.model_fields["grader"].description
    head = load_head()
    feats = head["calibration"]["features"]
    assert feats and len(feats) == len(head["calibration"]["weights"])
    assert all(w >= 0 for w in head["calibration"]["weights"])
    assert {"lower_threshold", "upper_threshold", "strip_threshold"} <= set(head["thresholds"])


def test_alignment_features_follow_the_matches() -> None:
    q = fake("When did Rollo rule?", ["When", "did", "Rollo", "rule", "?"],
             [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1]])
    hit = fake("Rollo ruled in 911.", ["Rollo", "ruled", "in", "911", "."],
               [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 0, 1], [0, 1, 1]])
    miss = fake("Rollo ruled long.", ["Rollo", "ruled", "long", "."],
                [[0, 0, 1], [1, 0.2, 0], [0, 1, 0], [0, 1, 1]])
    a, b = alignment(q, hit, CorpusStats(), [(0, len(hit.text))]), alignment(q, miss, CorpusStats(), [(0, 17)])
    assert set(a) == set(FEATURES)
    assert a["a_mean"] == pytest.approx(1.0) and a["a_share90"] == 1.0 and a["shape_ok"] == 1.0
    assert b["a_mean"] < a["a_mean"] and b["shape_ok"] == 0.0  # "when" wants a year the question lacks
    assert answer_shape("How many people live there?") == "number" and answer_shape("What is it?") is None


def test_missing_encoder_falls_back_to_fusion_and_says_so(tmp_path: Path) -> None:
    s = Settings(grader="align", models_dir=tmp_path)
    g = make_grader(s, FakeEmbedder())
    assert isinstance(g, AlignGrader) and not g.available
    grades = g.grade(QUESTION, [chunk(PARAGRAPH)])
    fusion = make_grader(Settings(grader="fusion"), FakeEmbedder())
    assert grades[0].error and "align encoder unavailable" in grades[0].error
    assert grades[0].score == pytest.approx(fusion.grade(QUESTION, [chunk(PARAGRAPH)])[0].score)


def test_shipped_head_scores_the_answer_above_its_ablated_copy(real_embedder) -> None:  # noqa: ANN001
    s = Settings(grader="align", models_dir=REPO / "models")
    g = make_grader(s, real_embedder, CorpusStats.from_texts([PARAGRAPH, ABLATED]))
    assert isinstance(g, AlignGrader) and g.available
    full, cut = g.score_texts(QUESTION, [PARAGRAPH, ABLATED])
    assert full > cut
    grade, = g.grade(QUESTION, [chunk(PARAGRAPH)])
    assert grade.error is None and grade.grader == "align" and "a_mean" in grade.signals


def _script():  # noqa: ANN202
    return load_script("train_align")


def test_training_is_deterministic_on_a_tiny_input() -> None:
    mod = _script()
    rng = np.random.default_rng(0)
    kinds = ["pos"] * 12 + ["ablated"] * 6 + ["hard"] * 6
    F = [{n: float(rng.random() + (0.5 if k == "pos" else 0.0)) for n in mod.NAMES} for k in kinds]
    a, b = mod.fit_head(F, kinds), mod.fit_head([dict(f) for f in F], list(kinds))
    assert a == b and a.features and all(w >= 0 for w in a.weights)
    p = [a(f) for f in F]
    assert np.mean(p[:12]) > np.mean(p[12:])  # it learned the shift it was shown
