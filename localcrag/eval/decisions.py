"""The CRAG decision alone, by the pipeline's own path (``Pipeline.judge``: retrieve the
graded pool, grade it, keep the k best, decide); no generation.

The answers part reaches the same decision but also writes an answer, which on a 135M
model costs seconds per question; this part measures the evaluator where CRAG uses it
(Correct / Ambiguous / Incorrect on the product's own retrieval) in well under a second
per question, so a 100-question set can be checked after every change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from localcrag.eval import metrics as m
from localcrag.eval.datasets import Question
from localcrag.types import Chunk


def run_decisions(
    pipe: Any,
    questions: list[Question],
    k: int,
    progress: Callable[[int, int, str], None],
    withhold: Callable[[Question], frozenset[str]] | None = None,
    units: Callable[[Chunk], tuple[str, ...]] | None = None,
) -> dict:
    """Per question: action, best score, whether the decision is right (answerable ->
    Correct or Ambiguous; not answerable -> Incorrect), and whether a reference answer's
    text is among the chunks graded. ``withhold``: the chunk ids searched as if not indexed;
    ``units``: the dataset's chunk -> gold units map (then: whether a gold unit was graded)."""
    grader = pipe.grader
    th = pipe.thresholds
    rows = []
    spent = 0.0
    for i, q in enumerate(questions):
        drop = withhold(q) if withhold else frozenset()
        timings: dict[str, float] = {}
        # the product's own path: the graded pool, grades raised by binding, the k best kept
        judged = pipe.judge(q.question, k, withhold=drop, timings=timings)
        spent += timings.get("grade", 0.0) / 1000
        hits, grades, d = judged.hits, judged.graded, judged.decision
        action = d.action.value
        ok = action in ("correct", "ambiguous") if q.answerable else action == "incorrect"
        rows.append(
            {
                "qid": q.qid,
                "answerable": q.answerable,
                "action": action,
                "best": round(d.best_score, 4),
                "ok": ok,
                "errors": sum(g.error is not None for g in grades),
                "withheld": len(drop),
                "answer_seen": m.answer_seen(q.answers, [h.chunk.text for h in hits])
                if q.answerable
                else None,
                "gold_graded": bool(set(q.gold) & {u for h in hits for u in units(h.chunk)})
                if q.gold and units
                else None,
                "chunks": [h.chunk.chunk_id for h in hits],
            }
        )
        progress(i + 1, len(questions), q.question[:60])
    return {**summarise(rows, grader, spent), "thresholds": th.to_json()}


def summarise(rows: list[dict], grader: Any, spent: float) -> dict:
    def actions(sel: list[dict]) -> dict[str, int]:
        return {
            a: sum(r["action"] == a for r in sel) for a in ("correct", "ambiguous", "incorrect")
        }

    yes = [r for r in rows if r["answerable"]]
    no = [r for r in rows if not r["answerable"]]
    return {
        "grader": grader.name,
        "questions": len(rows),
        "decision_accuracy": m.rounded(m.mean(r["ok"] for r in rows)),
        "answerable": {
            "n": len(yes),
            **actions(yes),
            "answered_share": m.rounded(m.mean(r["ok"] for r in yes)),
            "answer_seen_share": m.rounded(m.mean(r["answer_seen"] for r in yes)),
            # how often the answer-text check finds the answer when a gold unit was graded
            "answer_seen_when_gold_graded": m.rounded(
                m.mean(r["answer_seen"] for r in yes if r["gold_graded"])
            ),
            "best_quantiles": quantiles(r["best"] for r in yes),
        },
        "unanswerable": {
            "n": len(no),
            **actions(no),
            "refused_share": m.rounded(m.mean(r["ok"] for r in no)),
            "best_quantiles": quantiles(r["best"] for r in no),
        },
        "grade_errors": sum(r["errors"] for r in rows),
        "grade_ms_per_question": m.rounded(spent * 1000 / len(rows), 1) if rows else None,
        "items": rows,
    }


QUANTILES = (10, 25, 50, 75, 90)


def quantiles(values: Iterable[float | None]) -> dict[str, float | None]:
    """Best-score quantiles: how far a group sits from the thresholds, not only which side."""
    vals = [v for v in values if v is not None]
    return {f"p{q}": m.rounded(m.percentile(vals, q)) for q in QUANTILES}
