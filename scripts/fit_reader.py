"""Fit the reader's calibration, decision cut points and span margin; report held out.

    python scripts/fit_reader.py --model localcrag/data/reader_int8.onnx --write   # shipped sidecar
    python scripts/fit_reader.py --model /tmp/loso3.onnx                          # a leave-out run

Everything is *fitted* on the ``dev`` fold (scripts/reader_data.py: 10% of questions by a
hash) of the ``ship_ok`` families the model was trained on, and *reported* on data it never
saw: the six evaluation-only families (``ship_ok: false``: the pairs
``localcrag eval ../shared/data/qa-pairs`` samples, 100 of each label per family, seed 0,
each scored alone as ``score_texts(question, [passage])`` scores them) and the families
the run left out (``--exclude`` of scripts/train_reader.py). Three scorers side by side,
same pairs: the shipped fusion, the reader alone, and the reader stacked with the fusion
signals (a logistic over both, fitted on the same dev pairs).

Cut points: simulated retrievals from the dev fold (``present``: an answer-bearing passage
and 4 without, of the same family; ``absent``: 5 without): ``lower`` is the highest cut at
which >= ``--answered`` of present sets still reach it (the answered share the product
promises); ``upper`` the lowest cut where >= 95% of the sets it makes Correct are present.
The calibration is then rescaled so these cuts land on the settings' thresholds (0.51 and
0.76): one set of thresholds serves every grader. The span margin: the one that maximises
the dev answers' mean token F1 when a span above it is shown instead of its sentence.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from reader_data import Pair, eval_sample, fold, load  # noqa: E402

from localcrag.eval.metrics import roc_auc, token_f1  # noqa: E402

SEED = 0
FUSION_FEATURES = ("margin", "key", "ent_strip", "cue_ok")


def dev_sample(
    pairs: list[Pair], families: set[str], per_label: int, seed: int = SEED
) -> dict[str, list[Pair]]:
    rng = random.Random(seed)
    by: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        if p.family in families and fold(p.question) == "dev":
            by[p.family].append(p)
    out = {}
    for fam in sorted(by):
        pos = [p for p in by[fam] if p.label == 1]
        neg = [p for p in by[fam] if p.label == 0]
        out[fam] = rng.sample(pos, min(per_label, len(pos))) + rng.sample(
            neg, min(per_label, len(neg))
        )
    return out


def score_all(
    groups: dict[str, list[Pair]], reader, fusion, log
) -> dict[str, dict[str, np.ndarray]]:  # noqa: ANN001
    out = {}
    for fam, rows in groups.items():
        t0 = time.time()
        reads = [reader.read(p.question, [p.passage])[0] for p in rows]
        t_reader = (time.time() - t0) / max(1, len(rows))
        t0 = time.time()
        fus = [fusion._score_batch(p.question, [p.passage])[0] for p in rows]
        t_fusion = (time.time() - t0) / max(1, len(rows))
        out[fam] = {
            "label": np.array([p.label for p in rows]),
            "reader": np.array([r.logit for r in reads]),
            "fusion": np.array([s for s, _ in fus]),
            "sig": np.array([[sig[f] for f in FUSION_FEATURES] for _, sig in fus]),
            "spans": [(r.span, p) for r, p in zip(reads, rows)],
            "kinds": [p.kind for p in rows],
        }
        log(
            f"{fam}: {len(rows)} pairs, reader {t_reader * 1000:.1f} ms/pair, fusion {t_fusion * 1000:.1f} ms/pair"
        )
    return out


def auc(d: dict[str, np.ndarray], scores: np.ndarray) -> float:
    y = d["label"]
    return float(roc_auc(scores[y == 1], scores[y == 0]) or float("nan"))


def fit_logistic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    m = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)
    return m.coef_[0], float(m.intercept_[0])


def features(d: dict[str, np.ndarray], stack: bool) -> np.ndarray:
    r = d["reader"].reshape(-1, 1)
    return np.hstack([r, d["sig"]]) if stack else r


def cut_points(
    dev: dict[str, dict[str, np.ndarray]],
    z: dict[str, np.ndarray],
    answered: float,
    rng: random.Random,
) -> tuple[float, float, dict[str, float]]:
    present, absent = [], []
    for fam, d in dev.items():
        pos = z[fam][d["label"] == 1]
        neg = z[fam][d["label"] == 0]
        if len(neg) < 5 or not len(pos):
            continue
        for _ in range(200):
            others = rng.sample(list(neg), 4)
            present.append(max([rng.choice(list(pos))] + others))
            absent.append(max(rng.sample(list(neg), 5)))
    present, absent = np.array(present), np.array(absent)
    lower = float(np.quantile(present, 1 - answered))
    upper = float(present.max())
    for t in np.sort(np.concatenate([present, absent])):
        if t < lower:
            continue
        tp, fp = (present >= t).sum(), (absent >= t).sum()
        if tp and tp / (tp + fp) >= 0.95:
            upper = float(t)
            break
    stats = {
        "present_answered": float((present >= lower).mean()),
        "absent_refused": float((absent < lower).mean()),
        "present_correct": float((present >= upper).mean()),
        "absent_correct": float((absent >= upper).mean()),
        "sets": int(len(present)),
    }
    return lower, upper, stats


def span_margin(dev: dict[str, dict[str, np.ndarray]]) -> tuple[float, dict[str, float]]:
    """The margin that maximises the dev answers' mean token F1 when a span above it is shown
    alone and, below it, the sentence holding it (what the quoted answer does)."""
    from localcrag.textutil import split_sentences

    rows = []
    for d in dev.values():
        for (span, p), y in zip(d["spans"], d["label"]):
            if y == 1 and p.answer and span is not None and p.answer in p.passage:
                sent = next(
                    (p.passage[a:b] for a, b in split_sentences(p.passage) if a <= span.start < b),
                    p.passage,
                )
                rows.append(
                    (
                        span.margin,
                        token_f1(p.passage[span.start : span.end], [p.answer]),
                        token_f1(sent, [p.answer]),
                    )
                )
    if not rows:
        return 0.0, {"spans": 0}
    rows.sort(key=lambda r: -r[0])
    gains = np.cumsum([f_span - f_sent for _, f_span, f_sent in rows])
    k = int(np.argmax(gains))
    best = float(rows[k][0]) if gains[k] > 0 else float(rows[0][0]) + 1.0
    shown = [r for r in rows if r[0] >= best]
    return best, {
        "spans": len(rows),
        "shown": len(shown),
        "f1_shown_span": float(np.mean([r[1] for r in shown])) if shown else None,
        "f1_shown_sentence": float(np.mean([r[2] for r in shown])) if shown else None,
        "f1_all_spans": float(np.mean([r[1] for r in rows])),
        "f1_all_sentences": float(np.mean([r[2] for r in rows])),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--dev-per-label", type=int, default=120)
    ap.add_argument(
        "--answered", type=float, default=0.93, help="share of present sets the lower cut keeps"
    )
    ap.add_argument(
        "--stack",
        choices=("auto", "yes", "no"),
        default="auto",
        help="reader alone or stacked with the fusion signals (auto: the better mean dev AUC)",
    )
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument(
        "--read-tokens", type=int, default=0, help="window size at run time (0: the grader's)"
    )
    ap.add_argument("--write", action="store_true", help="write the calibration into <model>.json")
    ap.add_argument("--out", type=Path, default=None, help="write the report (json) here")
    args = ap.parse_args()
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.0f}s] {msg}", flush=True)

    from localcrag.crag.graders.factories import GraderContext
    from localcrag.crag.graders.reader import ReaderModel, read_sidecar
    from localcrag.crag.graders.text import CorpusStats
    from localcrag.models.embed import load_embedder
    from localcrag.settings import Settings

    meta = read_sidecar(args.model)
    excluded = set(meta.get("trained_on", {}).get("excluded_families", []))
    pairs = load()
    ship_fams = {p.family for p in pairs if p.family not in excluded} & {
        p.family for p in load(ship_ok=True)
    }
    trained = sorted(ship_fams)
    dev = dev_sample(pairs, ship_fams, args.dev_per_label)
    evals = eval_sample(pairs, {p.family for p in pairs} - ship_fams)
    log(
        f"dev {sum(map(len, dev.values()))} pairs over {len(dev)} trained families; "
        f"report {sum(map(len, evals.values()))} pairs over {sorted(evals)}"
    )
    s = Settings()
    texts = [p.passage for g in (dev, evals) for rows in g.values() for p in rows]
    ctx = GraderContext(
        s,
        load_embedder(s.model_path(s.models.embedder), threads=args.threads),
        CorpusStats.from_texts(texts),
    )
    fusion = ctx.fusion
    reader = ReaderModel(args.model, threads=args.threads)
    if args.read_tokens:
        reader.max_tokens = args.read_tokens
    dev_sc = score_all(dev, reader, fusion, log)
    ev_sc = score_all(evals, reader, fusion, log)

    y_dev = np.concatenate([d["label"] for d in dev_sc.values()])
    fits = {}
    for name, stack in (("reader", False), ("stack", True)):
        x = np.vstack([features(d, stack) for d in dev_sc.values()])
        w, b = fit_logistic(x, y_dev)
        dev_auc = np.mean([auc(d, features(d, stack) @ w + b) for d in dev_sc.values()])
        fits[name] = (w, b, float(dev_auc))
        log(
            f"{name}: dev mean AUC (in-sample, the fit's own pairs) {dev_auc:.3f} weights {np.round(w, 3).tolist()} bias {b:.3f}"
        )
    choice = {"auto": max(fits, key=lambda k: fits[k][2]), "yes": "stack", "no": "reader"}[
        args.stack
    ]
    w, b, _ = fits[choice]
    stack = choice == "stack"
    rng = random.Random(SEED)
    z_dev = {f: features(d, stack) @ w + b for f, d in dev_sc.items()}
    lo, up, cut_stats = cut_points(dev_sc, z_dev, args.answered, rng)
    # rescale: z' = a z + c with sigmoid(z'(lo)) = 0.51 and sigmoid(z'(up)) = 0.76
    from localcrag.settings import LOWER_THRESHOLD, UPPER_THRESHOLD

    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    a = (logit(UPPER_THRESHOLD) - logit(LOWER_THRESHOLD)) / max(up - lo, 1e-6)
    c = logit(LOWER_THRESHOLD) - a * lo
    weights, bias = (a * w).tolist(), float(a * b + c)
    feats = ["reader"] + (list(FUSION_FEATURES) if stack else [])
    margin, span_stats = span_margin(dev_sc)
    log(
        f"chosen: {choice}; cuts (logit) lower {lo:.3f} upper {up:.3f} {cut_stats}; span margin {margin:.2f} {span_stats}"
    )

    def shipped(d: dict[str, np.ndarray]) -> np.ndarray:
        return features(d, stack) @ np.array(weights) + bias

    report = {
        "model": str(args.model),
        "choice": choice,
        "trained_families": trained,
        "excluded_families": sorted(excluded),
        "rows": {},
    }
    log(
        f"{'family':22s} {'n':>4s} {'fusion':>7s} {'reader':>7s} {'stack':>7s} {'shipped':>8s}  (ROC-AUC; eval-only / left out)"
    )
    for fam, d in ev_sc.items():
        row = {
            "n": int(len(d["label"])),
            "fusion": auc(d, d["fusion"]),
            "reader": auc(d, d["reader"]),
            "stack": auc(d, features(d, True) @ fits["stack"][0] + fits["stack"][1]),
            "shipped": auc(d, shipped(d)),
            "kind": "left out" if fam in excluded else "eval-only",
        }
        p = 1 / (1 + np.exp(-shipped(d)))
        row["answered_pos@lower"] = float((p[d["label"] == 1] >= LOWER_THRESHOLD).mean())
        row["refused_neg@lower"] = float((p[d["label"] == 0] < LOWER_THRESHOLD).mean())
        report["rows"][fam] = row
        log(
            f"{fam:22s} {row['n']:4d} {row['fusion']:7.3f} {row['reader']:7.3f} {row['stack']:7.3f} {row['shipped']:8.3f}"
            f"  answered {row['answered_pos@lower']:.2f} refused {row['refused_neg@lower']:.2f}  ({row['kind']})"
        )
    for kind in ("eval-only", "left out"):
        rows = [r for r in report["rows"].values() if r["kind"] == kind]
        if rows:
            means = {
                k: float(np.mean([r[k] for r in rows]))
                for k in ("fusion", "reader", "stack", "shipped")
            }
            report[f"mean_{kind}"] = means
            log(f"mean {kind}: " + " ".join(f"{k} {v:.3f}" for k, v in means.items()))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, default=float) + "\n")
    if args.write:
        meta.update(
            {
                "calibration": {
                    "features": feats,
                    "weights": [round(x, 5) for x in weights],
                    "bias": round(bias, 5),
                },
                "calibration_note": (
                    f"logistic over {feats} fitted on the dev fold of {trained} ({len(y_dev)} pairs), "
                    f"rescaled so the cut points land on the settings' thresholds {LOWER_THRESHOLD} / "
                    f"{UPPER_THRESHOLD}"
                ),
                "cut_points": {
                    "lower": round(lo, 4),
                    "upper": round(up, 4),
                    "answered": args.answered,
                    **cut_stats,
                },
                "span_margin": round(margin, 3),
                "span_fit": span_stats,
                "thresholds": {
                    "lower_threshold": LOWER_THRESHOLD,
                    "upper_threshold": UPPER_THRESHOLD,
                },
                "grader": "reader",
                "trained_on_families": trained,
                "held_out": {k: report[k] for k in report if k.startswith("mean_")}
                | {"rows": report["rows"]},
            }
        )
        args.model.with_suffix(".json").write_text(
            json.dumps(meta, indent=1, default=float) + "\n", encoding="utf-8"
        )
        log(f"wrote {args.model.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
