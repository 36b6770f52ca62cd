"""Train the ``align`` evaluator's head on frozen MiniLM token features (seeded, seconds).

    python scripts/train_align.py --train Normans --out /tmp/align-normans.json     # direction head
    python scripts/train_align.py                                                # shipped head (both)

Pairs come from scripts/evaluator_data.py (the evaluator branch's builder): the SQuAD 2.0
article(s) named by --train (positive window, the same neighbourhood with the answer
sentence cut = ablated, another paragraph's window = hard, a changed year / number / name
= perturbed, unanswerable question vs its own paragraph = near) plus template questions over
general text (attention paper, docs/ except evaluator.md, pydoc_data). The other article is
never read, so a direction head can be reported on it:
``localcrag eval small.json --only evaluator --grader align --grader-model OUT --article OTHER``.
Features: :mod:`localcrag.crag.graders.align_features` + the fusion's signals, computed with
the provisioned int8 ONNX encoder (frozen). Head: class-balanced, L2, non-negative logistic
regression by Newton's method from zero (fit_grader.py's solver): deterministic.
Thresholds: fit_grader.py's rules on the *training* article(s) (in-sample).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from evaluator_data import Example  # noqa: E402
from fit_grader import FUSION, RECALL_STRIP, balanced_weights, choose_thresholds, fit_nonneg  # noqa: E402
from train_evaluator import SEED, build, load_squad, strip_spans  # noqa: E402

from localcrag.crag.graders.align import AlignGrader  # noqa: E402
from localcrag.crag.graders.align_features import FEATURES, TokenEncoder  # noqa: E402
from localcrag.crag.graders.base import Logistic  # noqa: E402
from localcrag.crag.graders.features import FeatureExtractor  # noqa: E402
from localcrag.crag.graders.fast import FeatureGrader  # noqa: E402
from localcrag.crag.graders.text import CorpusStats  # noqa: E402
from localcrag.eval.ablation import ablate  # noqa: E402
from localcrag.ingest.embed import load_embedder  # noqa: E402
from localcrag.ingest.embed_onnx import onnx_path_for  # noqa: E402

DATA = REPO / "localcrag" / "data"
MODELS = REPO / "models"
NAMES = list(FEATURES) + FUSION


def corpus(paras: list[dict], examples: list[Example]) -> CorpusStats:
    """IDF over what the head is trained on: the training paragraphs and the passages."""
    return CorpusStats.from_texts([p["text"] for p in paras] + sorted({e.passage for e in examples}))


def pair_features(grader: AlignGrader, examples: list[Example]) -> list[dict[str, float]]:
    """The grader's own signals for each (question, passage) pair, one call per question
    (so training reads exactly what grading reads)."""
    by_q: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(examples):
        by_q[e.question].append(i)
    out: list[dict[str, float]] = [{} for _ in examples]
    for q, idx in by_q.items():
        for i, (_, sig) in zip(idx, grader._score_batch(q, [examples[i].passage for i in idx])):
            out[i] = sig
    return out


def paragraph_examples(paras: list[dict], qs: list[dict], rng: random.Random) -> list[Example]:
    """Whole-paragraph pairs of the training article(s), the unit a chunk is graded at:
    own paragraph (pos), it with the answer sentences cut (ablated), two other paragraphs
    of the article (hard), an unanswerable question's own paragraph (near)."""
    out = []
    for q in qs:
        text = paras[q["para"]]["text"]
        if q["impossible"]:
            out.append(Example(q["question"], text, 0, "near"))
            continue
        out.append(Example(q["question"], text, 1, "pos"))
        cut = ablate(text, q["answers"])
        if cut and not any(t.lower() in cut.lower() for t in q["texts"]):
            out.append(Example(q["question"], cut, 0, "ablated"))
        art = paras[q["para"]]["article"]
        for j in rng.sample([i for i, p in enumerate(paras) if p["article"] == art and i != q["para"]], 2):
            if not any(t.lower() in paras[j]["text"].lower() for t in q["texts"]):
                out.append(Example(q["question"], paras[j]["text"], 0, "hard"))
    return out


def fit_head(F: list[dict[str, float]], kinds: list[str], names: list[str] = NAMES) -> Logistic:
    """Balanced (positives = all negatives; each negative kind equal), non-negative fit."""
    y = np.array([k == "pos" for k in kinds], float)
    return fit_nonneg(F, names, y, balanced_weights(kinds))


def fit_thresholds(grader: AlignGrader, articles: list[str], log) -> dict[str, float]:  # noqa: ANN001
    """fit_grader.py's rules on the training article(s): present = own paragraph + 4 others
    of the article, absent = the 4 others; strip = keeps 90% of answer-bearing strips."""
    rng = random.Random(SEED + 2)
    paras, qs = load_squad(articles)
    present, absent, strips = [], [], []
    for q in [q for q in qs if not q["impossible"]]:
        art = paras[q["para"]]["article"]
        others = rng.sample([i for i, p in enumerate(paras) if p["article"] == art and i != q["para"]], 4)
        sc = grader.score_texts(q["question"], [paras[q["para"]]["text"]] + [paras[i]["text"] for i in others])
        present.append(max(sc))
        absent.append(max(sc[1:]))
        text = paras[q["para"]]["text"]
        hit = [text[a:b] for a, b in strip_spans(text) if any(a <= s < b for s, _ in q["answers"])]
        strips += grader.score_texts(q["question"], hit[:1]) if hit else []
    lower, upper = choose_thresholds({"present": np.array(present), "absent": np.array(absent)})
    strip = float(np.floor(np.quantile(strips, 1 - RECALL_STRIP) * 100) / 100)
    log(f"thresholds (in-sample, {articles}): lower {lower} upper {upper} strip {strip}")
    return {"lower_threshold": lower, "upper_threshold": upper, "strip_threshold": min(strip, lower)}


def make_grader(stats: CorpusStats, threads: int, models: Path = MODELS, model: Logistic | None = None) -> AlignGrader:
    folder = models / "all-MiniLM-L6-v2"
    emb = load_embedder(folder, threads=threads, backend="onnx")
    fx = FeatureExtractor(emb, stats)
    fusion = FeatureGrader("fusion", fx, Logistic(tuple(FUSION), (1.0,) * len(FUSION), 0.0))
    head = model or Logistic(tuple(NAMES), (0.0,) * len(NAMES), 0.0)
    return AlignGrader(TokenEncoder(folder, onnx_path_for(folder), threads=threads), head, fusion, stats)


def compare(train: Path, test: Path) -> None:
    """Pair-level held-out AUCs from two --features-out files: the head fitted on ``train``,
    all features against the fusion's four alone, scored on ``test``."""
    from fit_grader import roc_auc

    (F, K), (G, L) = [(d["features"], d["kinds"]) for d in (json.loads(p.read_text()) for p in (train, test))]
    labels = np.array(L)
    for tag, names in (("all", NAMES), ("fusion", FUSION), ("no shape_ok", [n for n in NAMES if n != "shape_ok"])):
        head = fit_head(F, K, names)
        sc = np.array([head(g) for g in G])
        pos = sc[labels == "pos"]
        print(tag, " ".join(f"{k} {roc_auc(pos, sc[labels == k]):.3f}" for k in ("ablated", "hard", "near", "perturbed")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", nargs="+", default=["Normans", "Computational_complexity_theory"])
    ap.add_argument("--out", type=Path, default=DATA / "align_head.json")
    ap.add_argument("--per-doc", type=int, default=10, help="template questions per general document")
    ap.add_argument("--squad-repeat", type=int, default=1)
    ap.add_argument("--max-pairs", type=int, default=0, help="0: all")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", type=Path, default=MODELS, help="provisioned models/ folder")
    ap.add_argument("--paragraphs", action=argparse.BooleanOptionalAction, default=True,
                    help="also train on whole SQuAD paragraphs of the training article(s)")
    ap.add_argument("--features-out", type=Path, default=None, help="also save the pair features (JSON)")
    ap.add_argument("--no-thresholds", action="store_true", help="skip the threshold fit (tests)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("TRAIN.json", "TEST.json"),
                    help="only print pair-level held-out AUCs of two --features-out files")
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
        return 0
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.1f}s] {msg}", flush=True)

    examples = build(args)
    paras, qs = load_squad(args.train)
    if args.paragraphs:
        examples += paragraph_examples(paras, qs, random.Random(SEED + 1))
    kinds = [e.kind for e in examples]
    log(f"{len(examples)} pairs {dict(sorted((k, kinds.count(k)) for k in set(kinds)))} from {args.train}")
    grader = make_grader(corpus(paras, examples), args.threads, args.models)
    F = pair_features(grader, examples)
    log("features done")
    if args.features_out:
        args.features_out.write_text(json.dumps({"kinds": kinds, "features": F}), encoding="utf-8")
    head = fit_head(F, kinds)
    log("head: " + ", ".join(f"{n} {w:.3f}" for n, w in zip(head.features, head.weights)) + f"; bias {head.bias:.3f}")
    grader.model = head
    thresholds = {} if args.no_thresholds else fit_thresholds(grader, args.train, log)
    meta = {
        "grader": "align", "encoder": "all-MiniLM-L6-v2 int8 ONNX (frozen, provisioned)", "seed": SEED,
        "trained_on": {"squad_articles": args.train, "general_text": "attention paper, docs/ (not evaluator.md), "
                       "pydoc_data topics", "pairs": {k: kinds.count(k) for k in sorted(set(kinds))}},
        "args": {"paragraphs": args.paragraphs, "per_doc": args.per_doc, "squad_repeat": args.squad_repeat, "max_pairs": args.max_pairs},
        "train_seconds": round(time.time() - t0, 1),
        "calibration": {"features": list(head.features), "weights": [round(w, 6) for w in head.weights],
                        "bias": round(head.bias, 6)},
        "thresholds": thresholds,
        "thresholds_fitted_on": f"SQuAD 2.0 {', '.join(args.train)} (in-sample)",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
