"""The ceiling of a quoted answer on anthropic-docs, chosen by an oracle.

For every question, the best run of up to SENTS consecutive sentences (at most WORDS words)
of its *gold* chunks, picked *with* the reference answer in hand: no real answerer can do
better by quoting. Used to state honestly what the extractive style can reach on a data
set whose reference answers are paraphrases.

    python scripts/quote_ceiling.py              # 60 words, 3 sentences: the product's limits
    python scripts/quote_ceiling.py --words 100 --sentences 5
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from localcrag.crag.grounding import evidence_sentences
from localcrag.eval.metrics import token_f1, token_recall

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "anthropic-docs"


def ceiling(data: Path, words: int, sents: int) -> tuple[float, float, int]:
    qs = json.loads((data / "docs_evaluation_dataset.json").read_text(encoding="utf-8"))
    docs = {c["chunk_link"]: c["text"]
            for c in json.loads((data / "anthropic_docs.json").read_text(encoding="utf-8"))}
    recall, f1 = [], []
    for q in qs:
        best_r = best_f = 0.0
        for link in q["correct_chunks"]:
            ss = evidence_sentences(docs.get(link, ""))
            for i in range(len(ss)):
                for j in range(i + 1, min(i + sents, len(ss)) + 1):
                    text = " ".join(ss[i:j])
                    if len(text.split()) > words:
                        break
                    best_r = max(best_r, token_recall(text, [q["correct_answer"]]))
                    best_f = max(best_f, token_f1(text, [q["correct_answer"]]))
        recall.append(best_r)
        f1.append(best_f)
    return statistics.mean(recall), statistics.mean(f1), len(qs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--words", type=int, default=60)
    p.add_argument("--sentences", type=int, default=3)
    a = p.parse_args()
    r, f, n = ceiling(a.data, a.words, a.sentences)
    print(f"oracle quote (<= {a.sentences} consecutive gold sentences, <= {a.words} words): "
          f"answer_recall {r:.3f}, answer_f1 {f:.3f} over {n} questions")


if __name__ == "__main__":
    main()
