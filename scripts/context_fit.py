"""Choose how much a sentence's context counts in an extractive answer (crag/context.py).

Runs CRAG over the seed-0 ``--limit N`` slice (offline, extractive, the eval's own index),
keeps the chunks the grader kept (the pool the product quotes from) and re-answers each
answered question with every (discount, reach, lead_only, grade_context) in the grid, with the product's
ranking (the grader's three-way mean). Prints answer F1 / recall per variant over the
questions CRAG answers (Incorrect is the same refusal in every variant). Only the slice
given is read: run it on the fitting slice, report held-out figures with `localcrag eval`.

    python scripts/context_fit.py ../shared/data/anthropic-docs --limit 40
"""

from __future__ import annotations

import argparse
from itertools import product
from pathlib import Path

from extract_pool import capture, mean, pools

from localcrag.crag.extract import extractive_answer
from localcrag.eval.datasets import load_dataset, select
from localcrag.eval.metrics import token_f1, token_recall
from localcrag.eval.runner import eval_settings, workdir_for
from localcrag.settings import Settings

GRID = ([(0.0, 1, False, False)] + [(d, r, lead, False) for d, r, lead in product((0.25, 0.5, 0.75), (1, 2), (False, True))]
        + [(d, 1, True, True) for d in (0.25, 0.5, 0.75)])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dataset", type=Path)
    p.add_argument("--limit", type=int, default=40)
    a = p.parse_args()
    ds = load_dataset(a.dataset)
    from localcrag.crag.pipeline import Pipeline

    pipe = Pipeline(eval_settings(Settings.load(), workdir_for(ds) / "index", True))
    pipe.library.ingest(ds.corpus(workdir_for(ds)), prune=True)
    pipe.warm_up()
    rows = [capture(pipe, q) for q in select(ds.questions, a.limit, 0) if q.answerable]
    rows = [r for r in rows if r["action"] != "incorrect"]
    print(f"{len(rows)} answered questions of the seed-0 --limit {a.limit} slice (F1 / recall)")
    for d, r, lead, read in GRID:
        f1, rec = [], []
        for row in rows:
            q, evidence = row["q"], pools(row)["kept"]
            text = extractive_answer(q.question, evidence, pipe.grader.score_texts, discount=d, reach=r,
                                     lead_only=lead, grade_context=read).text
            f1.append(token_f1(text, q.answers))
            rec.append(token_recall(text, q.answers))
        print(f"  discount {d:.2f} reach {r} lead_only {lead!s:5} grade_context {read!s:5}  {mean(f1):.3f} / {mean(rec):.3f}", flush=True)


if __name__ == "__main__":
    main()
