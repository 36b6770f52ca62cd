#!/usr/bin/env python
"""Fit the fusion against the hardest on-topic negatives (measured, not the default: docs/evaluator.md).

The shipped fusion (scripts/fit_grader.py) learns "relevant" against easy (other
article), hard (a random other paragraph of the article) and near (unanswerable question,
own paragraph) SQuAD pairs. ``localcrag eval --only decisions --withhold gold`` shows it
cannot tell a question's own text from the *top-retrieved* rest of the corpus. This
script builds those negatives on SQuAD with the product's own objects (the eval's SQuAD
index, ``Retriever.search(withhold=own paragraph's chunks)``, the pipeline's feature
extractor) and refits the same logistic recipe (class-balanced, each negative kind
weighing the same, non-negative weights, fixed L2, Newton from zero):

  wh   = the k chunks retrieved for an answerable question with its own paragraph withheld
         (a chunk holding a reference answer's text is dropped: it may answer);
  abl  = the own paragraph with the sentences holding the answer span cut (eval/ablation.py).

Thresholds follow fit_grader.py's rules, but on the product's real retrievals:
present = the k chunks retrieved on the full index (answerable questions), absent = the k
chunks retrieved with the own paragraph withheld; lower = best balanced accuracy present vs
absent, upper = lowest threshold >= lower at which >= 95% of Correct are present.

Held-out figures: fit on one article, report on the other (both directions). Every variant is
also fitted on both articles and written to --out-dir (the candidates to measure). anthropic-docs and val.json are never read.

Usage (the SQuAD eval index is built on first use under $LOCALCRAG_HOME/eval/):
  PYTHONPATH=. python scripts/fit_withheld.py [--out-dir /tmp/fusion_withheld]
then measure the written file with
  localcrag eval DATASET --only decisions --withhold gold --grader fusion --grader-model FILE
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from fit_grader import (  # noqa: E402 (after the sys.path line)
    FUSION,
    SEED,
    balanced_weights,
    choose_thresholds,
    fit_nonneg,  # noqa: E402
    roc_auc,
    shipped_entry,
)

K = 5
ARTICLES = ("Normans", "Computational_complexity_theory")
EXTRA = ["key_strip", "ent_idf", "lex", "cos_strip", "numbers_ok", "negation_ok", "antonyms_ok"]
# name -> (features, negative kinds of the fit)
VARIANTS = {
    "shipped recipe (easy, hard, near)": (FUSION, ("easy", "hard", "near")),
    "withheld + ablated (easy, wh, abl, near)": (FUSION, ("easy", "wh", "abl", "near")),
    "all kinds (easy, hard, wh, abl, near)": (FUSION, ("easy", "hard", "wh", "abl", "near")),
    "wh + abl only": (FUSION, ("wh", "abl")),
    "withheld + ablated, more signals": (FUSION + EXTRA, ("easy", "wh", "abl", "near")),
}


def open_eval(path: Path):  # noqa: ANN201
    """The dataset, its eval index (as `localcrag eval` builds it), a retriever, the chunk
    ids under each gold unit, and ``signals(question, texts)``: the fusion extractor's, with
    the index's statistics and centroid."""
    from localcrag.crag.pipeline import Pipeline
    from localcrag.crag.retrieve import Retriever
    from localcrag.eval.adapters import load_dataset
    from localcrag.eval.runner import _ingest, eval_settings, workdir_for
    from localcrag.eval.withhold import chunk_ids_by_unit
    from localcrag.settings import Settings

    ds = load_dataset(path)
    wd = workdir_for(ds)
    pipe = Pipeline(
        eval_settings(
            Settings.load().merged({"grader": "fusion", "grader_model": None}),
            wd / "index",
            True,
        )
    )
    _ingest(pipe, ds, wd, lambda p: None)
    return (
        ds,
        Retriever(pipe.settings, pipe.library),
        chunk_ids_by_unit(pipe, ds),
        pipe.grader.extractor.features,
    )


def build(shared: Path, log) -> tuple[list[dict], dict]:  # noqa: ANN001
    """Every SQuAD pair (question, text, kind, article, signals) and the 5-chunk
    retrievals per question (full index / own paragraph withheld / unanswerable)."""
    from localcrag.eval.ablation import ablate

    ds, retriever, by_unit, signals = open_eval(shared / "squad2-dev-subset" / "small.json")
    ids = sorted(ds.passages)
    pairs: list[dict] = []
    runs: dict = {"present": [], "absent": [], "near": []}  # (qid, article, [texts])
    for n, q in enumerate(ds.questions):
        if q.context_id is None:
            continue
        art, text = ds.passages[q.context_id]
        add = lambda t, kind, _q=q, _a=art: pairs.append(  # noqa: E731
            {"qid": _q.qid, "q": _q.question, "text": t, "kind": kind, "article": _a}
        )
        full = [h.chunk.text for h in retriever.search(q.question, k=K)]
        if not q.answerable:
            add(text, "near")
            runs["near"].append((q.qid, art, q.question, full))
            continue
        add(text, "pos")
        rng = random.Random(f"{SEED}:{q.qid}")
        for i in rng.sample([p for p in ids if ds.passages[p][0] != art], 3):
            add(ds.passages[i][1], "easy")
        for i in rng.sample([p for p in ids if ds.passages[p][0] == art and p != q.context_id], 4):
            add(ds.passages[i][1], "hard")
        cut = ablate(text, q.answer_spans)
        low = [a.lower() for a in q.answers]
        if cut is not None and not any(a in cut.lower() for a in low):
            add(cut, "abl")
        drop = frozenset(c for u in q.gold for c in by_unit.get(u, ()))
        off = [h.chunk.text for h in retriever.search(q.question, k=K, withhold=drop)]
        for t in off:
            if not any(a in t.lower() for a in low):
                add(t, "wh")
        runs["present"].append((q.qid, art, q.question, full))
        runs["absent"].append((q.qid, art, q.question, off))
        if n % 100 == 0:
            log(f"retrieved {n}/{len(ds.questions)}")
    by_q: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        by_q[p["q"]].append(i)
    for qtext, idx in by_q.items():
        for i, f in zip(idx, signals(qtext, [pairs[i]["text"] for i in idx])):
            pairs[i]["f"] = f
    for name, rows in runs.items():
        runs[name] = [(qid, art, signals(qt, texts)) for qid, art, qt, texts in rows]
    log(
        f"{len(pairs)} pairs; "
        + ", ".join(
            f"{k} {sum(p['kind'] == k for p in pairs)}"
            for k in ("pos", "easy", "hard", "near", "wh", "abl")
        )
    )
    return pairs, runs


def ceiling(path: Path, names: list[str], log, folds: int = 5) -> dict:  # noqa: ANN001
    """A diagnostic, never shippable: how well ANY non-negative weighting of ``names`` could
    tell a dataset's full-index runs from its gold-withheld runs, fitted on that dataset
    itself (pos = graded gold chunks of the full run, neg = the withheld run's chunks).
    Out-of-fold: each question scored by weights fitted on the other folds (by question;
    same documents); in-sample: one fit on all. Figures as goal(): best-grade AUC, refused
    at the lower threshold that answers 90%."""
    ds, retriever, by_unit, signals = open_eval(path)
    rows = []
    for q in ds.questions:
        drop = frozenset(c for u in q.gold for c in by_unit.get(u, ()))
        if not q.answerable or not drop:
            continue
        full = retriever.search(q.question, k=K)
        off = retriever.search(q.question, k=K, withhold=drop)
        gold = [bool(set(q.gold) & set(ds.units(h.chunk))) for h in full]
        rows.append(
            (
                signals(q.question, [h.chunk.text for h in full]),
                gold,
                signals(q.question, [h.chunk.text for h in off]),
            )
        )
    log(
        f"ceiling: {len(rows)} questions, {sum(any(g) for _, g, _ in rows)} with a gold chunk graded"
    )

    def fit_on(idx: list[int]):  # noqa: ANN202
        F, ks = [], []
        for i in idx:
            ff, gold, fo = rows[i]
            F += [f for f, g in zip(ff, gold) if g] + fo
            ks += ["pos"] * sum(gold) + ["wh"] * len(fo)
        return fit_nonneg(F, names, np.array([k == "pos" for k in ks], float), balanced_weights(ks))

    def figures(model_of) -> dict:  # noqa: ANN001
        on = [max(model_of(i)(f) for f in rows[i][0]) for i in range(len(rows))]
        off = [max(model_of(i)(f) for f in rows[i][2]) for i in range(len(rows))]
        cut = sorted(on)[len(on) // 10]
        return {
            "auc_full_vs_withheld": round(roc_auc(on, off), 3),
            "refused_at_90": round(float(np.mean([b < cut for b in off])), 3),
        }

    models = [fit_on([i for i in range(len(rows)) if i % folds != f]) for f in range(folds)]
    whole = fit_on(list(range(len(rows))))
    return {
        "out_of_fold": figures(lambda i: models[i % folds]),
        "in_sample": figures(lambda i: whole),
        "weights_in_sample": dict(zip(whole.features, np.round(whole.weights, 3))),
    }


def fit(pairs: list[dict], names: list[str], kinds: tuple[str, ...], arts: set[str]):  # noqa: ANN201
    sel = [p for p in pairs if p["article"] in arts and p["kind"] in ("pos",) + kinds]
    ks = [p["kind"] for p in sel]
    return fit_nonneg(
        [p["f"] for p in sel],
        names,
        np.array([k == "pos" for k in ks], float),
        balanced_weights(ks),
    )


def best(model, runs: dict, arts: set[str]) -> dict[str, np.ndarray]:  # noqa: ANN001
    return {
        k: np.array([max(model(f) for f in fs) for _, a, fs in rows if a in arts])
        for k, rows in runs.items()
    }


def report(model, pairs: list[dict], runs: dict, arts: set[str], lo: float, up: float) -> dict:  # noqa: ANN001
    sc = defaultdict(list)
    for p in pairs:
        if p["article"] in arts:
            sc[p["kind"]].append(model(p["f"]))
    out = {
        f"auc_{k}": round(roc_auc(sc["pos"], sc[k]), 3)
        for k in ("easy", "hard", "near", "abl", "wh")
    }
    b = best(model, runs, arts)
    out.update(
        {
            "auc_full_vs_withheld": round(roc_auc(b["present"], b["absent"]), 3),
            "answered": round(float((b["present"] >= lo).mean()), 3),
            "withheld_refused": round(float((b["absent"] < lo).mean()), 3),
            "withheld_correct": round(float((b["absent"] >= up).mean()), 3),
            "near_refused": round(float((b["near"] < lo).mean()), 3),
            "lower": lo,
            "upper": up,
        }
    )
    return out


def recipe(pairs: list[dict], runs: dict, names: list[str], kinds: tuple[str, ...], arts: set[str]):  # noqa: ANN201
    model = fit(pairs, names, kinds, arts)
    b = best(model, runs, arts)
    lo, up = choose_thresholds({"present": b["present"], "absent": b["absent"]})
    return model, lo, up


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.split(" (")[0].lower()).strip("_")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument(
        "--out-dir",
        type=Path,
        default=Path("/tmp/fusion_withheld"),
        help="one params file per variant, fitted on both articles (its thresholds inside)",
    )
    ap.add_argument(
        "--ceiling",
        type=Path,
        default=None,
        metavar="DATASET",
        help="diagnostic only: fit on DATASET itself (5 folds by question) to see how far "
        "the signals could go there; writes no params file",
    )
    ap.add_argument("--results", type=Path, default=Path("/tmp/fit_withheld_results.json"))
    args = ap.parse_args()

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if args.ceiling is not None:
        out = {
            f"fusion: {n}": ceiling(args.ceiling, feats, log)
            for n, feats in (("shipped features", FUSION), ("+ more signals", FUSION + EXTRA))
        }
        print(json.dumps(out, indent=2, default=float))
        return 0
    pairs, runs = build(args.shared, log)
    results: dict = {}
    for name, (names, kinds) in VARIANTS.items():
        res = {}
        for train in ARTICLES:
            test = next(a for a in ARTICLES if a != train)
            model, lo, up = recipe(pairs, runs, names, kinds, {train})
            res[f"{train[:8]} -> {test[:8]}"] = {
                **report(model, pairs, runs, {test}, lo, up),
                "weights": dict(zip(model.features, np.round(model.weights, 3))),
            }
        model, lo, up = recipe(pairs, runs, names, kinds, set(ARTICLES))
        res["both (in-sample)"] = {
            **report(model, pairs, runs, set(ARTICLES), lo, up),
            "weights": dict(zip(model.features, np.round(model.weights, 3))),
            "bias": round(model.bias, 3),
        }
        results[name] = res
        # every variant's both-articles fit, for `localcrag eval --grader-model`
        params = json.loads(
            (REPO / "localcrag" / "data" / "grader_fusion.json").read_text(encoding="utf-8")
        )
        params["graders"]["fusion"] = shipped_entry(model)
        strip = params["thresholds"]["strip"]
        params["thresholds"] = {
            "lower_threshold": lo,
            "upper_threshold": up,
            "strip_threshold": min(strip, lo),
        }
        params["fitted_on"] = (
            f"SQuAD small.json, both articles; scripts/fit_withheld.py variant {name!r}"
        )
        params["script"] = "scripts/fit_withheld.py"
        args.out_dir.mkdir(parents=True, exist_ok=True)
        out = args.out_dir / f"{slug(name)}.json"
        out.write_text(json.dumps(params, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {out}")
    args.results.write_text(json.dumps(results, indent=2, default=float) + "\n", encoding="utf-8")
    cols = (
        "auc_easy",
        "auc_hard",
        "auc_near",
        "auc_abl",
        "auc_wh",
        "auc_full_vs_withheld",
        "answered",
        "withheld_refused",
        "withheld_correct",
        "near_refused",
        "lower",
        "upper",
    )
    print("| variant | split | " + " | ".join(cols) + " | weights |")
    for name, res in results.items():
        for split, r in res.items():
            w = ", ".join(f"{k} {v:.2f}" for k, v in r["weights"].items())
            print(f"| {name} | {split} | " + " | ".join(str(r[c]) for c in cols) + f" | {w} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
