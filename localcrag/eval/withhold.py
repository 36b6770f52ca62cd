"""``--withhold gold``: the CRAG decision on on-topic passages that lack the answer.

A decision is only trustworthy if it refuses questions whose passages are on topic but do
not hold the answer; the sets here have no such questions. The closest honest stand-in
from our own data: ask each answerable question again with its own answer-bearing units
(anthropic-docs: its gold chunks; SQuAD: its own paragraph; val.json: its gold chapters)
withheld from the search, so the chunks graded are the nearest on-topic text that should
not answer it, and CRAG should refuse.
The withheld chunks are dropped inside the search (``LanceStore.search(withhold=...)``),
from each ranked list before fusion: one index, no re-ingest, still k chunks.

Another chunk may repeat the answer (SQuAD answers are short names and numbers that recur
in an article; the docs repeat themselves), so each item records whether a reference
answer's text is in what was graded (``answer_seen``, metrics.py): for short answers an
upper bound on such leaks, for long paraphrased ones a weak check (its hit rate where a
gold unit was graded is reported beside it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from localcrag.eval import metrics as m
from localcrag.eval.datasets import Dataset, Question
from localcrag.eval.decisions import quantiles, run_decisions
from localcrag.types import Chunk


def chunk_ids_by_unit(pipe: Any, ds: Dataset) -> dict[str, list[str]]:
    """Every indexed chunk's id under each gold unit it covers (one read of the table)."""
    d = pipe.library.store.columns(
        ["chunk_id", "source", "page_start", "page_end", "char_start", "char_end"]
    )
    out: dict[str, list[str]] = {}
    for cid, src, p0, p1, c0, c1 in zip(
        d["chunk_id"], d["source"], d["page_start"], d["page_end"], d["char_start"], d["char_end"]
    ):
        for unit in ds.units(Chunk(cid, src, "", int(p0), int(p1), int(c0), int(c1))):
            out.setdefault(unit, []).append(cid)
    return out


def run_withheld(
    pipe: Any,
    ds: Dataset,
    questions: list[Question],
    k: int,
    progress: Callable[[int, int, str], None],
) -> dict:
    """The answerable questions with gold units, decided with those units' chunks withheld."""
    by_unit = chunk_ids_by_unit(pipe, ds)
    drop = {q.qid: frozenset(c for u in q.gold for c in by_unit.get(u, ())) for q in questions}
    asked = [q for q in questions if q.answerable and drop[q.qid]]
    res = run_decisions(pipe, asked, k, progress, withhold=lambda q: drop[q.qid], units=ds.units)
    rows = res["items"]
    y = res["answerable"]

    def share(count: int) -> float | None:
        return m.rounded(count / len(rows)) if rows else None

    free = [r for r in rows if not r["answer_seen"]]
    return {
        "what": "gold",
        "questions": len(rows),
        "skipped": sum(
            q.answerable and not drop[q.qid] for q in questions
        ),  # no gold unit in the index
        "gold_graded": sum(bool(r["gold_graded"]) for r in rows),  # a check: always 0
        "chunks_withheld_mean": m.rounded(m.mean(r["withheld"] for r in rows), 2),
        "correct": y["correct"],
        "ambiguous": y["ambiguous"],
        "incorrect": y["incorrect"],
        "refused_share": share(y["incorrect"]),
        "ambiguous_share": share(y["ambiguous"]),
        "correct_share": share(y["correct"]),
        "best_quantiles": quantiles(r["best"] for r in rows),
        "answer_seen_share": m.rounded(m.mean(r["answer_seen"] for r in rows)),
        "refused_share_answer_unseen": m.rounded(m.mean(r["action"] == "incorrect" for r in free)),
        "answer_unseen_n": len(free),
        "grade_errors": res["grade_errors"],
        "grade_ms_per_question": res["grade_ms_per_question"],
        "items": rows,
    }


def goal(decisions: dict) -> dict:
    """The pair of decision goals from one run: >= 90% of answerable questions answered on the
    full index, >= 80% refused with their answer-bearing text withheld. Beside them, on the
    questions of both runs: how well the best score alone tells the two apart (ROC-AUC, no
    threshold), and the refused share at the lower threshold that would answer exactly 90%
    of them (an in-sample operating point: chosen on these very questions)."""
    answered = decisions["answerable"]["answered_share"]
    w = decisions.get("withheld") or {}
    refused = w.get("refused_share")
    off = {r["qid"]: r["best"] for r in w.get("items", [])}
    on = [r["best"] for r in decisions["items"] if r["qid"] in off]
    cut = sorted(on)[len(on) // 10] if on else None  # >= 90% of `on` are at or above it
    return {
        "answered_share": answered,
        "answered_goal": 0.9,
        "withheld_refused_share": refused,
        "refused_goal": 0.8,
        "met": None if answered is None or refused is None else answered >= 0.9 and refused >= 0.8,
        "auc_full_vs_withheld": m.rounded(m.roc_auc(on, list(off.values()))),
        "in_sample_lower_for_90": cut,
        "in_sample_refused_at_90": m.rounded(m.mean(b < cut for b in off.values())) if on else None,
    }
