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


def test_refusal_detection_covers_the_generator_writing_it() -> None:
    from localcrag.crag.answer.generate import REFUSAL
    from localcrag.textutil import is_refusal

    assert is_refusal(REFUSAL) and is_refusal("Sorry, I do not have enough information.")
    assert not is_refusal("Cobots work next to people [1].")


def test_unsupported_terms_finds_invented_numbers_and_names() -> None:
    # the reported examples, each with the evidence the generator was shown
    heads = ["we employ h = 8 parallel attention layers, or heads."]
    assert m.unsupported_terms(
        "The Transformer uses three attention heads: two for global hidden layers (LH) [2].", heads
    ) == ["2", "3", "Transformer", "LH"]
    bleu = ["Our big model achieves a BLEU score of 41.8 after 3.5 days on eight P100 GPUs."]
    assert m.unsupported_terms("It got a BLEU score of 57.1 [1].", bleu) == ["57.1"]
    tennis = [
        "Emma Raducanu won the 2021 U.S. Open, defeating Leylah Fernandez in Arthur Ashe Stadium."
    ]
    assert m.unsupported_terms(
        "It was won by Emma Raducanu in Arthur Ashe Stadium at the Royal Albert Hall [1].", tennis
    ) == ["Royal", "Albert", "Hall"]


def test_unsupported_terms_accepts_what_the_evidence_says() -> None:
    cake = ["Bake the lemon cake at 175 degrees Celsius for 40 minutes."]
    assert m.unsupported_terms("Bake it at 175 degrees Celsius for **40 minutes** [1].", cake) == []
    # number words and digits meet; thousands separators; a PDF's line-break hyphen; possessive
    assert m.unsupported_terms("It has eight heads and 1,000 steps.", ["h = 8, 1000 steps"]) == []
    assert m.unsupported_terms("The model is called Transformer.", ["the Trans-\nformer"]) == []
    assert m.unsupported_terms("It was Raducanu's first title.", ["Raducanu won"]) == []
    assert m.unsupported_terms("So Claude\u2019s answer.", ["Claude\u2019s answer"]) == []
    # sentence-initial capitals, "I", list marks and citations are not claims
    assert (
        m.unsupported_terms("I don't know. Robots help.\n1. Cobots [3] work.", ["robots", "cobots"])
        == []
    )
    assert m.unsupported_terms("Cobots work.", []) == []  # an opening capital word is not a name
    assert m.unsupported_terms("They use GPT-3.", []) == [
        "3",
        "GPT-3",
    ]  # an acronym is one anywhere


def test_unsupported_words_checks_every_content_word_not_only_names_and_numbers() -> None:
    ev = ["Collaborative robots, called cobots, work safely next to people in factories."]
    # the product's sentence check keeps this (no number or name; 5 of 7 content words in one
    # evidence sentence): the eval's check still finds what the evidence never says
    assert m.unsupported_words(
        "Cobots work safely in factories and never injure people [1].", ev
    ) == ["never", "injure"]
    assert m.unsupported_words("Cobots work in factories near Osaka since 1998 [1].", ev) == [
        "near",
        "Osaka",
        "1998",
    ]
    # stems and number words meet; citations, stop words and PDF hyphens are not claims
    assert m.unsupported_words("A cobot worked next to people [2].", ev) == []
    assert m.unsupported_words("It has eight heads.", ["we employ h = 8 parallel heads"]) == []
    assert m.unsupported_words("The Transformer is used.", ["the Trans-\nformer is used"]) == []
    assert m.unsupported_words("Anything at all.", []) == ["Anything"]


def test_a_reference_written_rounded_matches_the_value_it_was_rounded_from() -> None:
    """ "59.90" and "3.02e-09" are the sheet's 59.9022258996569 and 3.016327243421154e-09 at
    the reference's precision; a figure of few digits that rounds alike is another figure
    ("1.46" is no "1.5", "3.71" no version "3.7"), and a whole number is matched as written."""
    assert m.contains_reference("F of Regression: **59.9022258996569**", ["59.90"])
    assert m.contains_reference("Significance F: 3.016327243421154e-09 [1]", ["3.02e-09"])
    assert m.contains_reference("Total: 1,890.408133639737", ["1890.41"])
    assert not m.contains_reference("F of Regression: 59.9122258996569", ["59.90"])
    assert not m.contains_reference("Significance F: 3.016327243421154e-08", ["3.02e-09"])
    assert not m.contains_reference("It is 1.46 units.", ["1.5"])
    assert not m.contains_reference("Python 3.71 is out.", ["3.7"])
    assert not m.contains_reference("It weighs 7.412345 kg.", ["7"])


def test_contains_reference_by_normalised_run_or_half_the_shortest_reference() -> None:
    assert m.contains_reference("It was the Normans, in 1066 [1].", ["Normans"])
    assert m.contains_reference(
        "They came from Normandy in France.", ["Normandy, a region in France"]
    )  # 2/4
    assert not m.contains_reference("They came from Brittany.", ["Normandy, a region in France"])
    # the shortest reference decides the recall rule, but any reference may be contained whole
    assert not m.contains_reference(
        "in the north", ["northern France", "the north of France at Rouen"]
    )
    assert m.contains_reference(
        "Rouen, in the north of France at Rouen.", ["Paris", "north of France at Rouen"]
    )
    assert not m.contains_reference("anything", [])


def test_trust_table_counts_each_outcome_and_the_wrong_answer_rate_can_rise() -> None:
    refs = ["next to people in factories"]
    cells = [
        (
            True,
            m.outcome("Cobots work next to people in factories [1].", False, True, refs),
        ),  # right
        (True, m.outcome("Cobots paint cars [1].", False, True, refs)),  # answered, wrong
        (
            True,
            m.outcome("I don't have enough information.", True, True, refs),
        ),  # refused, answerable
        (False, m.outcome("Brazil won it [1].", False, False, ())),  # answered the unanswerable
        (False, m.outcome("I don't have enough information.", True, False, ())),  # right refusal
        (True, m.outcome("Some answer.", False, True, ())),  # no reference: unjudged
    ]
    assert [c for _, c in cells] == [
        "right_answer",
        "wrong_answer",
        "wrong_refusal",
        "wrong_answer",
        "right_refusal",
        "unjudged",
    ]
    t = m.trust_table(cells)
    assert t["answerable"] == {
        "n": 4,
        "right_answer": 1,
        "wrong_answer": 1,
        "right_refusal": 0,
        "wrong_refusal": 1,
        "unjudged": 1,
    }
    assert t["unanswerable"]["wrong_answer"] == 1 and t["unanswerable"]["right_refusal"] == 1
    assert t["wrong_answer"] == 2 and t["right_answer"] == 1
    assert t["wrong_answer_rate"] == 0.6667  # 2 of the 3 judged answers given
    assert t["wrong_refusal_rate"] == 0.5  # of the 2 refusals
    assert m.trust_table([])["wrong_answer_rate"] is None


def test_a_reference_joined_to_its_neighbours_by_punctuation_is_found() -> None:
    """SQuAD's normalisation deletes punctuation, gluing "arts!A5:F15" into one word and a
    Markdown link's text to its URL: a reference with letters is also looked for with
    punctuation read as a space; figures alone are not ("1,234" is no "1 234")."""
    from localcrag.eval.metrics import contains_reference

    assert contains_reference('range = "arts!**A5:F15**"', ["A5:F15"])
    assert contains_reference("- [**CVE-2021-27836**](https://nvd.nist.gov/x)", ["CVE-2021-27836"])
    assert not contains_reference("range = arts!A5:F16", ["A5:F15"])
    assert not contains_reference("sizes 1 234 and 5", ["1,234"])
