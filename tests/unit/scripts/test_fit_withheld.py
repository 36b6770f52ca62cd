"""scripts/fit_withheld.py: the recipe learns containment when its negatives demand it."""

from __future__ import annotations

import numpy as np

from tests.support.scriptload import load_script


def _script():  # noqa: ANN202
    return load_script("fit_withheld")


def _data(seed: int = 0) -> tuple[list[dict], dict]:
    """pos: on topic, key terms present; wh: on topic, key terms missing; easy: off topic
    with the key terms (so easy negatives alone teach topic only)."""
    rng = np.random.default_rng(seed)
    pairs, runs = [], {"present": [], "absent": [], "near": []}
    for i in range(120):
        art = "A" if i % 2 else "B"
        f = {
            "pos": {"margin": 0.5, "key": 0.9},
            "wh": {"margin": 0.5, "key": 0.2},
            "easy": {"margin": 0.0, "key": 0.9},
            "near": {"margin": 0.5, "key": 0.5},
        }
        noisy = {k: {n: v + rng.normal(0, 0.1) for n, v in d.items()} for k, d in f.items()}
        for kind, sig in noisy.items():
            pairs.append(
                {"qid": str(i), "q": f"q{i}", "text": kind, "kind": kind, "article": art, "f": sig}
            )
        runs["present"].append((str(i), art, [noisy["pos"], noisy["wh"]]))
        runs["absent"].append((str(i), art, [noisy["wh"]]))
        runs["near"].append((str(i), art, [noisy["near"]]))
    return pairs, runs


def test_withheld_negatives_move_weight_to_containment_and_refuse_held_out() -> None:
    fw = _script()
    pairs, runs = _data()
    topic, lo_t, up_t = fw.recipe(pairs, runs, ["margin", "key"], ("easy",), {"A"})
    contain, lo, up = fw.recipe(pairs, runs, ["margin", "key"], ("easy", "wh"), {"A"})
    w_t, w_c = (
        dict(zip(topic.features, topic.weights)),
        dict(zip(contain.features, contain.weights)),
    )
    assert w_c.get("key", 0) / max(w_c.get("margin", 0), 1e-9) > w_t.get("key", 0) / max(
        w_t.get("margin", 1e-9), 1e-9
    )
    held_out = fw.report(contain, pairs, runs, {"B"}, lo, up)  # fitted on A, reported on B
    assert held_out["auc_wh"] > 0.95 and held_out["auc_full_vs_withheld"] > 0.95
    assert held_out["withheld_refused"] > 0.9 and held_out["answered"] > 0.9
    assert fw.report(topic, pairs, runs, {"B"}, lo_t, up_t)["auc_wh"] < held_out["auc_wh"]
    assert fw.slug("withheld + ablated (easy, wh)") == "withheld_ablated"
