"""One question, answered extractively with every context variant of scripts/context_fit.py.

Indexes the given documents in ``$LOCALCRAG_HOME`` (set it to a scratch folder), runs CRAG
offline, and quotes from the chunks the grader kept with each (discount, reach, lead_only,
grade_context) in the grid: what reading a sentence in its context changes on one case.

    LOCALCRAG_HOME=/tmp/ctx python scripts/context_show.py \\
        ../shared/data/ai-information/attention_is_all_you_need.pdf \\
        "What dropout rate was used for the base model?"
"""

from __future__ import annotations

import argparse
from pathlib import Path

from context_fit import GRID

from localcrag.crag.extract import extractive_answer
from localcrag.crag.refine import graded_evidence
from localcrag.record import RunRecord
from localcrag.settings import Settings


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("documents", type=Path, nargs="+")
    p.add_argument("question")
    a = p.parse_args()
    from localcrag.crag.pipeline import Pipeline

    pipe = Pipeline(Settings.load())
    pipe.library.ingest(a.documents)
    pipe.warm_up()
    run = RunRecord(a.question, "crag")
    for e in pipe.run(a.question, mode="crag", style="extractive", confirm_web=lambda _: False):
        run.add(e)
    evidence = graded_evidence([run.grades[i] for i in sorted(run.grades)], pipe.thresholds.lower)
    for d, r, lead, read in GRID:
        text = extractive_answer(a.question, evidence, pipe.grader.score_texts, discount=d, reach=r,
                                 lead_only=lead, grade_context=read).text
        print(f"discount {d:.2f} reach {r} lead_only {lead!s:5} grade_context {read!s:5} | {text}")


if __name__ == "__main__":
    main()
