"""The qa-pairs corpus (``../shared/data/qa-pairs``): does this passage contain the answer?

``localcrag eval ../shared/data/qa-pairs`` scores labelled (question, passage) pairs from
15 public sources, each pair *alone*, through the configured grader's
``score_texts(question, [passage])`` (the grader the product builds from the settings, so
``--grader`` / ``--grader-model`` apply), and reports ROC-AUC of label 1 vs label 0 per
source family and per negative kind, the means over the evaluation-only and the training
(``ship_ok``) families, accuracy at the thresholds in force, and ms per pair.

The sampling is a small pure function, :func:`sample_pairs`, meant to be imported by the
training scripts too, so a report and a script always mean the same pairs::

    from localcrag.eval.qapairs import load_pairs, sample_pairs, restrict
    sample = sample_pairs(load_pairs(path))            # {family: [QAPair, ...]}, 100 + 100 each
    sample = restrict(sample, sources=("subjqa",), exclude=("squad_v2.0",))

Nothing here imports a model: :func:`run_pairs` gets the grader from the pipeline it is given.
"""

from __future__ import annotations

import gzip
import json
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localcrag.errors import LocalcragError
from localcrag.eval import metrics as m

PAIRS_FILE = "pairs.jsonl.gz"
PER_FAMILY = 200  # pairs per family by default: 100 of each label
SEED = 0
FIELDS = ("question", "passage", "label", "source", "kind")


@dataclass(frozen=True)
class QAPair:
    """One row of ``pairs.jsonl.gz`` (the fields the evaluation uses)."""

    question: str
    passage: str
    label: int  # 1: the passage contains the answer
    source: str  # e.g. squad_v2.0, ares_synthetic/nq
    kind: str  # answerable, adversarial_unanswerable, same_doc_other_passage, ...
    ship_ok: bool  # False: evaluation only (never trained on by shipped weights)
    answer: str | None = None

    @property
    def family(self) -> str:
        return family_of(self.source)


def family_of(source: str) -> str:
    """``ares_synthetic/nq`` -> ``ares_synthetic``: the part of the source before '/'."""
    return source.split("/")[0]


def pairs_file(path: Path) -> Path | None:
    """The pairs file a dataset path names (the folder holding ``pairs.jsonl.gz``, a
    ``*.jsonl.gz`` file, or a ``*pairs*.jsonl`` file), or None when it names none."""
    if path.is_dir():
        return path / PAIRS_FILE if (path / PAIRS_FILE).is_file() else None
    name = path.name.lower()
    return (
        path
        if name.endswith(".jsonl.gz") or (name.endswith(".jsonl") and "pairs" in name)
        else None
    )


def load_pairs(path: Path) -> list[QAPair]:
    """Every row of a pairs file, in file order; a bad line is one clear error naming it."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    out: list[QAPair] = []
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                    out.append(
                        QAPair(
                            str(r["question"]),
                            str(r["passage"]),
                            int(r["label"]),
                            str(r["source"]),
                            str(r["kind"]),
                            bool(r.get("ship_ok", False)),
                            r.get("answer"),
                        )
                    )
                except (ValueError, KeyError, TypeError) as exc:
                    raise LocalcragError(
                        f"{path}: line {n}: not a pair object ({type(exc).__name__}: {exc})",
                        f"each line must be a JSON object with {', '.join(FIELDS)} "
                        "(see ../shared/data/qa-pairs/README.md)",
                    ) from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise LocalcragError(
            f"{path}: cannot read the pairs file ({type(exc).__name__}: {exc})",
            "give the qa-pairs folder or its pairs.jsonl.gz",
        ) from None
    if not out:
        raise LocalcragError(
            f"{path}: no pairs in the file", "give the qa-pairs folder or its pairs.jsonl.gz"
        )
    return out


def sample_pairs(
    pairs: Iterable[QAPair], per_label: int = PER_FAMILY // 2, seed: int = SEED
) -> dict[str, list[QAPair]]:
    """The evaluation sample: per source family, ``per_label`` pairs of each label.

    One ``random.Random(seed)`` for the whole sample; families are taken in sorted order,
    and within each, ``rng.sample`` draws the positives (label 1), then the negatives
    (label 0), from the family's rows in file order. A family with fewer rows of a label
    gives all of them. Deterministic: the same file, ``per_label`` and ``seed`` always give
    the same pairs in the same order (positives first). Pure: reads nothing, draws from
    nothing but its own generator. Default: 100 + 100 per family, seed 0.
    """
    rng = random.Random(seed)
    by_family: dict[str, list[QAPair]] = {}
    for p in pairs:
        by_family.setdefault(p.family, []).append(p)
    out: dict[str, list[QAPair]] = {}
    for name in sorted(by_family):
        rows = by_family[name]
        pos = [p for p in rows if p.label == 1]
        neg = [p for p in rows if p.label == 0]
        out[name] = rng.sample(pos, min(per_label, len(pos))) + rng.sample(
            neg, min(per_label, len(neg))
        )
    return out


def restrict(
    sample: Mapping[str, Sequence[QAPair]], sources: Sequence[str] = (), exclude: Sequence[str] = ()
) -> dict[str, list[QAPair]]:
    """The groups to report, taken from a sample without drawing again (so a restricted run
    reports exactly the pairs of the full run).

    ``sources``: family names (``subjqa``) keep their family; exact sources
    (``ares_synthetic/nq``) keep that source's pairs of its family's sample, reported as a
    group of their own. ``exclude``: families or exact sources to drop (e.g. those a
    grader was trained on). Unknown names in ``sources`` are an error naming the choices.
    """
    if sources:
        known = set(sample) | {p.source for rows in sample.values() for p in rows}
        if unknown := [s for s in sources if s not in known]:
            raise LocalcragError(
                f"--sources: {', '.join(unknown)} not in the pairs",
                f"choose among the families: {', '.join(sorted(sample))} (or an exact source "
                "such as ares_synthetic/nq)",
            )
        groups = {
            s: [p for p in sample[family_of(s)] if s in (p.family, p.source)] for s in sources
        }
    else:
        groups = {name: list(rows) for name, rows in sample.items()}
    drop = set(exclude)
    kept = {
        name: [p for p in rows if p.family not in drop and p.source not in drop]
        for name, rows in groups.items()
    }
    return {name: rows for name, rows in kept.items() if rows}


def _share(flags: Sequence[bool]) -> float | None:
    return m.rounded(m.mean([float(f) for f in flags])) if flags else None


def summarise_group(
    scored: Sequence[tuple[QAPair, float]], lower: float, upper: float, trained: bool
) -> dict[str, Any]:
    """One report row: AUC (label 1 vs 0), per negative kind AUC (the group's positives vs
    that kind's negatives), and the threshold figures (see :func:`summarise`)."""
    pos = [s for p, s in scored if p.label == 1]
    neg = [s for p, s in scored if p.label == 0]
    kinds: dict[str, list[float]] = {}
    for p, s in scored:
        if p.label == 0:
            kinds.setdefault(p.kind, []).append(s)
    return {
        "ship_ok": any(p.ship_ok for p, _ in scored),
        "trained": trained,
        "n": len(scored),
        "positives": len(pos),
        "negatives": len(neg),
        "auc": m.rounded(m.roc_auc(pos, neg)),
        "accuracy": m.rounded(m.threshold_accuracy(pos, neg, lower)),
        "accuracy_upper": m.rounded(m.threshold_accuracy(pos, neg, upper)),
        "answered_lower": _share([s >= lower for s in pos]),
        "refused_lower": _share([s < lower for s in neg]),
        "answered_upper": _share([s >= upper for s in pos]),
        "refused_upper": _share([s < upper for s in neg]),
        "mean_positive": m.rounded(m.mean(pos)),
        "mean_negative": m.rounded(m.mean(neg)),
        "kinds": {
            k: {"n": len(v), "auc": m.rounded(m.roc_auc(pos, v)), "mean": m.rounded(m.mean(v))}
            for k, v in sorted(kinds.items())
        },
    }


def _mean_of(rows: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    aucs = [r["auc"] for r in rows.values() if r["auc"] is not None]
    return {
        "groups": sorted(rows),
        "auc": m.rounded(m.mean(aucs)),
        "min_auc": min(aucs) if aucs else None,
        "accuracy": m.rounded(
            m.mean([r["accuracy"] for r in rows.values() if r["accuracy"] is not None])
        ),
    }


def summarise(
    scored: Mapping[str, Sequence[tuple[QAPair, float]]],
    lower: float,
    upper: float,
    trained_on: Sequence[str] = (),
) -> dict[str, Any]:
    """Per group (family or exact source) rows and the two means.

    * ``auc``: ROC-AUC of the label-1 scores against the label-0 scores (ties count half).
    * ``accuracy`` (at lower) / ``accuracy_upper``: the share of pairs on the right side of
      the threshold ``t``: a positive scored ``>= t`` counts as *answered* (right), a
      negative scored ``< t`` as *refused* (right). ``answered_*`` / ``refused_*`` give the
      two sides apart. The lower threshold is where CRAG keeps a chunk, the upper where it
      answers as Correct.
    * ``means``: ``eval_only`` over the groups with no ``ship_ok`` pair (never fitted on by
      weights that ship), ``ship_ok`` over the rest; ``trained`` marks a group the grader declares it was
      trained on (its figures are in-sample).
    """
    trained = set(trained_on)
    groups = {
        name: summarise_group(
            rows, lower, upper, bool({name, *(p.family for p, _ in rows)} & trained)
        )
        for name, rows in scored.items()
    }
    return {
        "groups": groups,
        "means": {
            "eval_only": _mean_of({k: v for k, v in groups.items() if not v["ship_ok"]}),
            "ship_ok": _mean_of({k: v for k, v in groups.items() if v["ship_ok"]}),
        },
    }


def score_groups(
    score_texts: Callable[[str, list[str]], list[float]],
    groups: Mapping[str, Sequence[QAPair]],
    progress: Callable[[int, int, str], None] = lambda *a: None,
) -> tuple[dict[str, list[tuple[QAPair, float]]], float]:
    """Every pair scored alone, ``score_texts(question, [passage])``; (scores, seconds spent)."""
    total = sum(len(rows) for rows in groups.values())
    out: dict[str, list[tuple[QAPair, float]]] = {}
    spent, done = 0.0, 0
    for name, rows in groups.items():
        out[name] = []
        for p in rows:
            t = time.perf_counter()
            score = score_texts(p.question, [p.passage])[0]
            spent += time.perf_counter() - t
            out[name].append((p, float(score)))
            done += 1
            progress(done, total, name)
    return out, spent


def _present(sample: Mapping[str, Sequence[QAPair]], names: Sequence[str]) -> list[str]:
    """The families or exact sources of ``names`` that the sample holds (what was dropped)."""
    drop = set(names)
    return sorted(
        {
            p.family if p.family in drop else p.source
            for rows in sample.values()
            for p in rows
            if p.family in drop or p.source in drop
        }
    )


@dataclass(frozen=True)
class PairOptions:
    """What ``--limit``, ``--seed``, ``--sources`` and ``--exclude-trained`` ask of a pairs run."""

    per_family: int = PER_FAMILY
    seed: int = SEED
    sources: tuple[str, ...] = ()
    exclude_trained: bool = False


def run_pairs(
    pipe: Any,
    path: Path,
    opts: PairOptions,
    thresholds: Any,
    progress: Callable[[int, int, str], None] = lambda *a: None,
) -> dict[str, Any]:
    """The evaluator part of ``localcrag eval`` on a pairs file, with the pipeline's grader
    and the thresholds in force; one JSON-ready dict (schema: docs/eval.md)."""
    if opts.per_family < 2:
        raise LocalcragError(
            f"--limit {opts.per_family}: a qa-pairs run needs at least 2 pairs per family",
            "--limit N takes N pairs per family, half of each label",
        )
    grader = pipe.grader
    trained_on = tuple(grader.trained_on)
    sample = sample_pairs(load_pairs(path), opts.per_family // 2, opts.seed)
    exclude = trained_on if opts.exclude_trained else ()
    groups = restrict(sample, opts.sources, exclude)
    if not groups:
        raise LocalcragError(
            f"{path}: no pairs left to score (--exclude-trained dropped {', '.join(exclude)})",
            "drop --exclude-trained or choose other --sources",
        )
    grader.score_texts("warm up", ["Load the models before the clock starts."])
    scored, spent = score_groups(grader.score_texts, groups, progress)
    n = sum(len(v) for v in scored.values())
    lo, up = thresholds.lower, thresholds.upper
    pos = [s for rows in scored.values() for p, s in rows if p.label == 1]
    neg = [s for rows in scored.values() for p, s in rows if p.label == 0]
    summary = summarise(scored, lo, up, trained_on)
    return {
        "grader": grader.name,
        "pairs": n,
        "errors": None,
        "auc_all": m.rounded(m.roc_auc(pos, neg)),
        "accuracy": m.rounded(m.threshold_accuracy(pos, neg, lo)),
        "accuracy_upper": m.rounded(m.threshold_accuracy(pos, neg, up)),
        "lower_threshold": round(lo, 4),
        "upper_threshold": round(up, 4),
        "thresholds": thresholds.to_json(),
        "ms_per_chunk": m.rounded(spent * 1000 / n, 1),
        "ms_per_pair": m.rounded(spent * 1000 / n, 2),
        "per_family": opts.per_family,
        "seed": opts.seed,
        "sources": list(opts.sources),
        "trained_on": list(trained_on),
        "excluded": _present(sample, exclude),
        "families": summary["groups"],
        "means": summary["means"],
        "family_scores": {
            name: {
                k: [round(s, 4) for p, s in rows if p.kind == k]
                for k in dict.fromkeys(p.kind for p, _ in rows)
            }
            for name, rows in scored.items()
        },
    }
