"""Pairs for the reader (scripts/train_reader.py) from ``../shared/data/qa-pairs``.

Only ``ship_ok`` rows ever train weights that ship. Every question is put in a fold by a
hash of its text (so one question never sits on both sides): fold ``dev`` (10%) fits the
stacking calibration and the thresholds, fold ``train`` trains the network. Evaluation-only
sources (``ship_ok: false``) are only ever *read* for reports (``eval_sample``), 200 pairs
per source, 100 of each label, seed 0: the measurement the reader issue states.

Sampling puts the hardest negatives first: every kind has a weight (an on-topic passage
that lacks the answer counts more than a random one), and each source is capped so the
largest ones (SelQA, MedQuAD) do not drown the rest.
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PAIRS = REPO.parent / "shared" / "data" / "qa-pairs" / "pairs.jsonl.gz"

from localcrag.eval.qapairs import QAPair, load_pairs, sample_pairs  # noqa: E402

# Hardest first: how much more often a kind is drawn than a plain candidate negative.
KIND_WEIGHT = {
    "adversarial_unanswerable": 3.0,
    "unanswerable": 3.0,
    "unanswerable_competitive": 3.0,
    "answer_removed": 2.0,
    "same_doc_other_passage": 2.0,
    "candidate_sentence_negative": 1.0,
    "random_passage": 0.3,
}
SOURCE_CAP = 9000  # pairs drawn per source at most (before the label balance)
FAMILY_WEIGHT = {"ares_synthetic": 0.4}  # its negatives are random passages: easy, so fewer


Pair = QAPair  # one row of pairs.jsonl.gz (question, passage, label, answer, source, kind, ship_ok)


def fold(question: str, dev_share: float = 0.1) -> str:
    h = int(hashlib.sha1(question.strip().lower().encode("utf-8")).hexdigest()[:8], 16)
    return "dev" if h / 0xFFFFFFFF < dev_share else "train"


def load(path: Path = PAIRS, ship_ok: bool | None = None) -> list[Pair]:
    """The pairs (all, or only the ``ship_ok`` / evaluation-only ones), in file order."""
    return [p for p in load_pairs(path) if ship_ok is None or p.ship_ok == ship_ok]


def training_sample(
    pairs: list[Pair],
    n: int,
    seed: int,
    part: str = "train",
    exclude_families: tuple[str, ...] = (),
) -> list[Pair]:
    """``n`` ship_ok pairs of fold ``part``, half positive, negatives weighted by kind."""
    rng = random.Random(seed)
    pool = [p for p in pairs if fold(p.question) == part and p.family not in exclude_families]
    by_source: dict[str, list[Pair]] = defaultdict(list)
    for p in pool:
        by_source[p.source].append(p)
    # Each source gives as many positives as negatives, so a source's style never predicts
    # the label; sources share the total by their balanced size (capped).
    size = {
        src: FAMILY_WEIGHT.get(src.split("/")[0], 1.0)
        * min(SOURCE_CAP, sum(p.label for p in rows), sum(1 - p.label for p in rows))
        for src, rows in by_source.items()
    }
    total = sum(size.values()) or 1
    picked: list[Pair] = []
    for src in sorted(by_source):
        rows = by_source[src]
        k = int(round(n / 2 * size[src] / total))
        pos = [p for p in rows if p.label == 1]
        neg = [p for p in rows if p.label == 0]
        rng.shuffle(pos)
        # weighted sampling without replacement (Efraimidis-Spirakis keys): hardest kinds first
        neg.sort(key=lambda p: -(rng.random() ** (1.0 / KIND_WEIGHT.get(p.kind, 1.0))))
        picked += pos[:k] + neg[:k]
    rng.shuffle(picked)
    return picked


def eval_sample(pairs: list[Pair], families: set[str] | None = None) -> dict[str, list[Pair]]:
    """The reporting sample of ``localcrag eval ../shared/data/qa-pairs`` (100 pairs of each
    label per family, seed 0: ``localcrag.eval.qapairs.sample_pairs``), restricted to
    ``families``: the same pairs that command scores."""
    return {f: rows for f, rows in sample_pairs(pairs).items() if families is None or f in families}
