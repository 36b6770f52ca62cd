"""scripts/reader_probe.py: the reading signals and the held-out combination it reports."""

from __future__ import annotations

import numpy as np

from tests.scriptload import load_script


def _script():  # noqa: ANN202
    return load_script("reader_probe")


def _read(pieces: list[str], pq: list[float], q: list[float]) -> dict:
    return {"answer": "".join(pieces).strip(), "n": len(pieces), "pieces": pieces, "tok_pq": pq, "tok_q": q,
            "lp_pq": sum(pq), "lp_q": sum(q), "lp_ab": sum(pq), "lp_abs": -6.0, "n_abs": 2}


def test_new_token_mask_skips_the_echo_of_the_question() -> None:
    rp = _script()
    pieces = [" The", " leader", " was", " Rol", "lo", "."]
    assert rp.new_token_mask(pieces, "Who was the leader of the raiders?") == [False, False, False, True, True, False]


def test_signals_separate_a_copied_answer_from_a_guess() -> None:
    rp = _script()
    q = "Who was the leader of the raiders?"
    passage = "The raiders, under their leader Rollo, swore fealty to King Charles."
    copied = rp.signals(_read([" The", " leader", " was", " Rol", "lo"], [-1, -1, -0.1, -0.2, -0.1],
                              [-1, -1, -0.1, -8.0, -3.0]), q, passage)
    guessed = rp.signals(_read([" The", " leader", " was", " Ivar"], [-1, -1, -0.1, -3.0],
                               [-1, -1, -0.1, -3.5]), q, passage)
    assert copied["pmi_new"] > 5 > guessed["pmi_new"] > 0
    assert copied["pmi"] > guessed["pmi"]
    assert copied["copy"] == 1.0 and guessed["copy"] < 1.0
    assert copied["newent"] == 1.0 and guessed["newent"] == 0.0
    assert rp.signals(_read([], [], []), q, passage)["pmi"] == 0.0  # no answer: no evidence


def _rows(seed: int = 0) -> list[dict]:
    """Signal ``x`` tells pos from neg in every set; the fusion only on SQuAD."""
    rng = np.random.default_rng(seed)
    rows = []
    for s, neg in (("Normans", "abl"), ("Computational_complexity_theory", "abl"), ("anthropic", "wh")):
        for i in range(40):
            for kind in ("pos", neg):
                good = kind == "pos"
                fus = (0.7 if good else 0.4) if s != "anthropic" else 0.55
                rows.append({"set": s, "qid": f"{s}{i}", "kind": kind,
                             "fusion": float(np.clip(fus + rng.normal(0, 0.1), 0.01, 0.99)),
                             "sig": {"x": (1.0 if good else 0.0) + rng.normal(0, 0.5)}})
    return rows


def test_combination_is_fitted_on_one_article_and_reported_elsewhere() -> None:
    rp = _script()
    rows = _rows()
    alone = rp.combos(rows, ("fusion",))
    both = rp.combos(rows, ("fusion", "x"))
    assert alone["Normans->anthropi:wh"] < 0.65  # the fusion is blind on this set
    assert both["Normans->anthropi:wh"] > 0.8  # the signal carries over to it
    lo, hi = both["Normans->anthropi: gain over fusion, 95% CI"]
    assert 0 < lo <= hi
    assert "Normans->Computat:abl" in both and "anthropic 5-fold (same corpus)" in both
