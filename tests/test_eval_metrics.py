"""The evaluation metrics on tiny examples checked by hand."""

from __future__ import annotations

import pytest

from localcrag.eval import metrics as m


def test_auc_counts_ties_as_half() -> None:
    # pairs (pos, neg): (.9,.5)=1 (.9,.1)=1 (.5,.5)=.5 (.5,.1)=1 (.5,.5)=.5 (.5,.1)=1 -> 5/6
    assert m.roc_auc([0.9, 0.5, 0.5], [0.5, 0.1]) == pytest.approx(5 / 6)
    assert m.roc_auc([0.3, 0.3], [0.3]) == pytest.approx(0.5)
    assert m.roc_auc([1.0], [0.0]) == 1.0
    assert m.roc_auc([0.0], [1.0, 2.0]) == 0.0
    assert m.roc_auc([], [1.0]) is None


def test_roc_curve_and_threshold_accuracy() -> None:
    fpr, tpr = m.roc_curve([0.9, 0.4], [0.6, 0.1])
    assert list(zip(fpr, tpr)) == [(0, 0), (0, 0.5), (0.5, 0.5), (0.5, 1.0), (1.0, 1.0)]
    # relevant iff >= 0.5: 0.9 right, 0.4 wrong, 0.6 wrong, 0.1 right
    assert m.threshold_accuracy([0.9, 0.4], [0.6, 0.1], 0.5) == 0.5
    assert m.threshold_accuracy([], [], 0.5) is None


def test_ranking_metrics_after_dedupe() -> None:
    ranking = m.dedupe_units([("a",), ("a",), ("b", "c"), (), ("d",)])
    assert ranking == ["a", "b", "c", "d"]
    assert m.recall_at_k(ranking, ["a", "d"], 3) == 0.5
    assert m.recall_at_k(ranking, ["a", "d"], 4) == 1.0
    assert m.mrr_at_k(ranking, ["c"], 3) == pytest.approx(1 / 3)
    assert m.mrr_at_k(ranking, ["c", "b"], 3) == 0.5
    assert m.mrr_at_k(ranking, ["d"], 3) == 0.0
    assert m.recall_at_k(ranking, [], 3) is None and m.mrr_at_k(ranking, [], 3) is None


def test_token_f1_and_recall_with_squad_normalisation() -> None:
    assert m.normalize_answer("The  Quick, brown fox!") == "quick brown fox"
    # prediction {cat, sat}, reference {cat, sat, down}: P = 1, R = 2/3, F1 = 0.8
    assert m.token_f1("The cat sat.", ["a cat sat down"]) == pytest.approx(0.8)
    assert m.token_recall("The cat sat.", ["a cat sat down"]) == pytest.approx(2 / 3)
    assert m.token_f1("dog", ["cat", "the dog"]) == 1.0  # best over references
    assert m.token_f1("anything", []) == 0.0
    assert m.token_f1("", ["cat"]) == 0.0


def test_summaries_skip_what_does_not_apply() -> None:
    assert m.mean([1.0, None, 0.0]) == 0.5
    assert m.mean([None]) is None
    assert m.percentile([1, 2, 3, None], 50) == 2
    assert m.rounded(None) is None and m.rounded(0.123456) == 0.1235
