"""The ceiling of a quoted answer on anthropic-docs, chosen by an oracle.

For every question, the best run of up to SENTS consecutive sentences (at most WORDS words)
of its *gold* chunks, picked *with* the reference answer in hand. Used to state honestly
what the extractive style can reach on a data set whose reference answers are paraphrases.

The product quotes sentences in any order, from any chunk, so the consecutive run is not
its ceiling: ``any order`` also tries every one or two gold sentences and extends the 20
best pairs by a third (a lower bound on the best any-order quote; the exhaustive search
over triples is too slow to run casually).

    python scripts/quote_ceiling.py              # 60 words, 3 sentences: the product's limits
    python scripts/quote_ceiling.py --words 100 --sentences 5
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
from pathlib import Path

from localcrag.crag.answer.grounding import evidence_sentences
from localcrag.eval.metrics import token_f1, token_recall

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "anthropic-docs"


def _any_order(ss: list[str], ref: list[str], words: int, sents: int) -> tuple[float, float]:
    """Best (recall, F1) of up to ``sents`` gold sentences in any order (pairs exhaustive,
    a third added to the 20 best pairs: a lower bound)."""
    ss = [s for s in dict.fromkeys(ss) if len(s.split()) <= words]
    combos = [(s,) for s in ss] + ([c for c in itertools.combinations(ss, 2)] if sents > 1 else [])
    fits = [c for c in combos if len(" ".join(c).split()) <= words]
    scored = [(token_recall(" ".join(c), ref), token_f1(" ".join(c), ref), c) for c in fits]
    best_r = max((r for r, _, _ in scored), default=0.0)
    best_f = max((f for _, f, _ in scored), default=0.0)
    if sents > 2:
        for _, _, c in sorted((x for x in scored if len(x[2]) == 2), key=lambda x: -x[0])[:20]:
            for s in ss:
                text = " ".join(c + (s,))
                if s not in c and len(text.split()) <= words:
                    best_r, best_f = (
                        max(best_r, token_recall(text, ref)),
                        max(best_f, token_f1(text, ref)),
                    )
    return best_r, best_f


def ceiling(data: Path, words: int, sents: int) -> dict[str, tuple[float, float]]:
    qs = json.loads((data / "docs_evaluation_dataset.json").read_text(encoding="utf-8"))
    docs = {
        c["chunk_link"]: c["text"]
        for c in json.loads((data / "anthropic_docs.json").read_text(encoding="utf-8"))
    }
    runs: dict[str, list[tuple[float, float]]] = {"consecutive": [], "any order": []}
    for q in qs:
        ref = [q["correct_answer"]]
        best_r = best_f = 0.0
        gold = []
        for link in q["correct_chunks"]:
            ss = evidence_sentences(docs.get(link, ""))
            gold += ss
            for i in range(len(ss)):
                for j in range(i + 1, min(i + sents, len(ss)) + 1):
                    text = " ".join(ss[i:j])
                    if len(text.split()) > words:
                        break
                    best_r = max(best_r, token_recall(text, ref))
                    best_f = max(best_f, token_f1(text, ref))
        runs["consecutive"].append((best_r, best_f))
        runs["any order"].append(_any_order(gold, ref, words, sents))
    return {
        k: (statistics.mean(r for r, _ in v), statistics.mean(f for _, f in v))
        for k, v in runs.items()
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--words", type=int, default=60)
    p.add_argument("--sentences", type=int, default=3)
    a = p.parse_args()
    for kind, (r, f) in ceiling(a.data, a.words, a.sentences).items():
        print(
            f"oracle quote ({kind}: <= {a.sentences} gold sentences, <= {a.words} words): "
            f"answer_recall {r:.3f}, answer_f1 {f:.3f}"
        )


if __name__ == "__main__":
    main()
