"""Where an extractive answer should quote from, and how it should rank sentences.

Runs CRAG over a dataset slice (offline, extractive, the eval's own index), keeps what the
answer stage could have seen, and re-answers every answered question from three pools:

* ``strips``: the refined strips (what CRAG quoted from before this script's finding),
* ``kept``: every chunk the grader kept (score >= lower), whole, best first,
* ``hits``: every retrieved chunk, best graded first (standard RAG's evidence),

with the sentence relevance taken from the question's words alone (``lex``, standard RAG's
ranking), the grader on the sentence (``grader``), or the mean of the grader, the words and
the sentence's chunk grade (``mean3``, the product's). It prints token F1 / recall per
variant, the best single sentence of each pool (an oracle: it reads the reference), and,
with ``--fit N``, the seed-0 ``--limit N`` slice apart from the rest: choose on ``fit``,
report on ``held``. Refused questions (Incorrect) are left out: their answer is the same
refusal in every variant.

    python scripts/extract_pool.py ../shared/data/anthropic-docs --limit 100 --fit 40
    python scripts/extract_pool.py ../shared/data/ai-information/val.json
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from localcrag.crag.answer.extract import extractive_answer
from localcrag.crag.answer.grounding import evidence_sentences
from localcrag.crag.refine import chunks_as_evidence, graded_evidence
from localcrag.eval.adapters import load_dataset
from localcrag.eval.datasets import Question, select
from localcrag.eval.metrics import token_f1, token_recall
from localcrag.eval.runner import eval_settings, workdir_for
from localcrag.record import RunRecord
from localcrag.settings import Settings
from localcrag.textutil import content_words
from localcrag.types import Evidence

Scorer = Callable[[str, Sequence[str]], list[float]] | None


def coverage(question: str, texts: Sequence[str]) -> list[float]:
    """The share of the question's content words in each text (standard RAG's relevance)."""
    asked = content_words(question)
    return [len(asked & content_words(t)) / max(1, len(asked)) for t in texts]


def capture(pipe: Any, q: Question) -> dict:
    """One CRAG run, extractive: its grades, threshold, strips (as evidence) and action."""
    run = RunRecord(q.question, "crag")
    for e in pipe.run(q.question, mode="crag", style="extractive", confirm_web=lambda _: False):
        run.add(e)
    from localcrag.crag.refine import recompose

    return {
        "q": q,
        "action": run.action.value if run.action else None,
        "grades": [run.grades[i] for i in sorted(run.grades)],
        "lower": pipe.thresholds.lower,
        "strips": recompose(run.strips),
    }


def pools(row: dict) -> dict[str, list[Evidence]]:
    ranked = sorted(row["grades"], key=lambda g: -g.score)
    return {
        "strips": row["strips"],
        "kept": graded_evidence(row["grades"], row["lower"]),
        "hits": chunks_as_evidence([g.chunk for g in ranked], [g.score for g in ranked]),
    }


def scorers(
    grader: Callable[[str, Sequence[str]], list[float]],
) -> dict[str, Callable[[list[Evidence]], Scorer]]:
    """Relevance variants. ``extractive_answer`` with a scorer already averages in the
    words and the chunk grade (mean3); ``grader`` undoes that average to show the grader
    alone; ``lex`` passes no scorer (standard RAG's path)."""

    def grader_alone(evidence: list[Evidence]) -> Scorer:
        grade = {s: e.score for e in evidence for s in evidence_sentences(e.text)}

        def score(q: str, texts: Sequence[str]) -> list[float]:
            # solve (g' + cov + grade) / 3 = g for g': the mean then equals the grader's score
            return [
                3 * g - c - grade.get(t, 0.0)
                for g, c, t in zip(grader(q, texts), coverage(q, texts), texts)
            ]

        return score

    return {"lex": lambda ev: None, "grader": grader_alone, "mean3": lambda ev: grader}


def mean(xs: list[float]) -> float:
    return statistics.mean(xs) if xs else float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dataset", type=Path)
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--fit", type=int, default=None, help="report the seed-0 --limit N slice apart")
    a = p.parse_args()
    ds = load_dataset(a.dataset)
    from localcrag.crag.pipeline import Pipeline

    pipe = Pipeline(eval_settings(Settings.load(), workdir_for(ds) / "index", True))
    pipe.library.ingest(ds.corpus(workdir_for(ds)), prune=True)
    pipe.warm_up()
    questions = select(ds.questions, a.limit, 0)
    fit = {q.qid for q in select(questions, a.fit, 0)} if a.fit else {q.qid for q in questions}
    rows = [capture(pipe, q) for q in questions if q.answerable]
    rows = [r for r in rows if r["action"] != "incorrect"]
    variants = scorers(pipe.grader.score_texts)
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for r in rows:
        q = r["q"]
        for pool, evidence in pools(r).items():
            for name, make in variants.items():
                text = extractive_answer(q.question, evidence, make(evidence)).text
                out.setdefault(f"{pool}/{name}", {})[q.qid] = (
                    token_f1(text, q.answers),
                    token_recall(text, q.answers),
                )
            sents = {s for e in evidence for s in evidence_sentences(e.text) if len(s.split()) >= 3}
            best = max((token_f1(s, q.answers) for s in sents), default=0.0)
            out.setdefault(f"{pool}/oracle-1", {})[q.qid] = (best, float("nan"))
    for part, ids in (("fit", fit), ("held", {r["q"].qid for r in rows} - fit)):
        qids = [r["q"].qid for r in rows if r["q"].qid in ids]
        if not qids:
            continue
        print(f"{part}: {len(qids)} answered questions (F1 / recall)")
        for key, res in out.items():
            print(
                f"  {key:16} {mean([res[i][0] for i in qids]):.3f} / {mean([res[i][1] for i in qids]):.3f}"
            )


if __name__ == "__main__":
    main()
