"""The answer part: run each question through the pipeline and score what comes out.

Events are folded into the same ``RunRecord`` that ``localcrag ask`` and the TUI read,
so the decision, the refusal and the timings are the product's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from localcrag.eval import metrics as m
from localcrag.eval.datasets import Dataset, Question
from localcrag.record import RunRecord

STAGES = ("retrieve", "grade", "refine", "web", "generate")


def evidence_chunks(run: RunRecord, mode: str) -> list:
    """Chunks the generator saw: all retrieved ones (RAG), the refined ones (CRAG)."""
    return [h.chunk for h in run.hits] if mode == "rag" else [s.chunk for s in run.strips]


def _decision_ok(q: Question, action: str | None, refused: bool, offline: bool) -> bool | None:
    """Answerable: Correct or Ambiguous. Unanswerable: Incorrect (and, offline, refused)."""
    if action is None:
        return None
    if q.answerable:
        return action in ("correct", "ambiguous")
    return action == "incorrect" and (refused or not offline)


def draft(run: RunRecord) -> str | None:
    """What the model wrote before the product's sentence check: the sentences shown (when
    the answer is written) and those the check dropped. None when no model wrote (a quote)
    or the answer is a refusal."""
    answer = run.answer
    if answer is None or run.claims_nothing or (answer.style != "generative" and not run.dropped):
        return None
    shown = answer.text if answer.style == "generative" else ""
    return " ".join([shown, *(sentence for sentence, _ in run.dropped)]).strip()


def score_run(ds: Dataset, q: Question, run: RunRecord, mode: str, offline: bool) -> dict:
    answer = run.answer
    text = answer.text if answer else ""
    refused = run.claims_nothing
    units = m.dedupe_units(ds.units(c) for c in evidence_chunks(run, mode))
    gold = set(q.gold)
    action = run.action.value if run.action else None
    best = (
        round(run.decision.best_score, 4) if run.decision else None
    )  # how far from the thresholds
    seen = [e.text for e in run.evidence]  # what the generator was shown
    return {
        "qid": q.qid,
        "answerable": q.answerable,
        "action": action,
        "best_score": best,
        "answer": text,
        "refused": refused,
        "style": answer.style if answer else None,
        "dropped_sentences": answer.dropped_sentences if answer else None,
        "unsupported": None if refused else m.unsupported_words(text, seen),
        "draft_unsupported": None
        if (written := draft(run)) is None
        else m.unsupported_words(written, seen),
        "outcome": m.outcome(text, refused, q.answerable, q.answers),
        "decision_ok": _decision_ok(q, action, refused, offline) if mode == "crag" else None,
        "refusal_ok": refused == (not q.answerable),
        "short": answer.short if answer else None,
        "f1": round(m.token_f1(text, q.answers), 4) if q.answerable else None,
        # the short answer the quote leads with, in bold (the whole quote when it has none)
        "short_f1": round(m.token_f1((answer.short if answer else None) or text, q.answers), 4)
        if q.answerable
        else None,
        "recall": round(m.token_recall(text, q.answers), 4) if q.answerable else None,
        "evidence_recall": round(len(gold & set(units)) / len(gold), 4) if gold else None,
        "evidence": [str(u) for u in units],
        "timings_ms": dict(run.timings) if answer else {},
        "total_ms": run.total_ms,
    }


def summarise(rows: list[dict], mode: str) -> dict:
    ok = [r for r in rows if "error" not in r]
    lat = {s: m.rounded(m.percentile((r["timings_ms"].get(s) for r in ok), 50), 1) for s in STAGES}
    ran = {s: sum(s in r["timings_ms"] for r in ok) for s in STAGES}  # a refusal never generates
    first = [r["timings_ms"].get("first_token") for r in ok]
    actions: dict[str, int] = {}
    for r in ok:
        if r["action"]:
            actions[r["action"]] = actions.get(r["action"], 0) + 1
    trust = m.trust_table((r["answerable"], r["outcome"]) for r in ok)
    return {
        "n": len(rows),
        "errors": len(rows) - len(ok),
        "wrong_answer_rate": trust["wrong_answer_rate"],
        "wrong_refusal_rate": trust["wrong_refusal_rate"],
        "trust": trust,
        # wrong answers the CORRECT badge vouched for ("the documents answer it")
        "wrong_under_correct": sum(
            r["outcome"] == m.WRONG_ANSWER and r["action"] == "correct" for r in ok
        )
        if mode == "crag"
        else None,
        "decision_accuracy": m.rounded(m.mean(r["decision_ok"] for r in ok))
        if mode == "crag"
        else None,
        "answer_f1": m.rounded(m.mean(r["f1"] for r in ok)),
        "short_answer_f1": m.rounded(m.mean(r.get("short_f1") for r in ok)),
        "answer_recall": m.rounded(m.mean(r["recall"] for r in ok)),
        "unsupported_rate": m.rounded(
            m.mean(bool(r["unsupported"]) for r in ok if r["unsupported"] is not None)
        ),
        "draft_unsupported_rate": m.rounded(
            m.mean(bool(r["draft_unsupported"]) for r in ok if r["draft_unsupported"] is not None)
        ),
        "refusal_accuracy": m.rounded(m.mean(r["refusal_ok"] for r in ok)),
        "evidence_recall": m.rounded(m.mean(r["evidence_recall"] for r in ok)),
        "first_token_ms_p50": m.rounded(m.percentile(first, 50), 1),
        "first_token_ms_p95": m.rounded(m.percentile(first, 95), 1),
        "total_ms_p50": m.rounded(m.percentile((r["total_ms"] for r in ok), 50), 1),
        "latency_ms_p50": {s: v for s, v in lat.items() if v is not None},
        "latency_runs": {s: n for s, n in ran.items() if n},  # questions each stage p50 is over
        "actions": actions or None,
    }


def run_answers(
    pipe: Any,
    ds: Dataset,
    questions: list[Question],
    mode: str,
    k: int,
    offline: bool,
    progress: Callable[[int, int, str], None],
    style: str | None = None,
) -> tuple[dict, list[dict]]:
    """Ask every question in one mode (and answer style: None = the setting); a failing
    question is recorded, never fatal."""
    styled = {"style": style} if style else {}
    rows: list[dict] = []
    if questions:
        pipe.warm_up()  # model loading is not part of any question's latency
    for i, q in enumerate(questions):
        run = RunRecord(q.question, mode)
        try:
            for e in pipe.run(
                q.question, mode=mode, confirm_web=lambda query: not offline, k=k, **styled
            ):
                run.add(e)
            rows.append(score_run(ds, q, run, mode, offline))
        except Exception as exc:  # noqa: BLE001 - one bad question must not sink the run
            rows.append({"qid": q.qid, "error": f"{type(exc).__name__}: {exc}"})
        progress(i + 1, len(questions), q.question[:60])
    return {**summarise(rows, mode), "style": style}, rows


def columns(modes: tuple[str, ...], styles: tuple[str, ...]) -> list[tuple[str, str, str | None]]:
    """(column, pipeline mode, answer style) per answer run.

    One style (or none: the setting) applies to every mode and the columns are the modes.
    Several styles split CRAG into "crag/<style>" columns; RAG stays one generative column,
    the standard-RAG baseline (the top chunks given to the generator).
    """
    if len(styles) <= 1:
        return [(mode, mode, styles[0] if styles else None) for mode in modes]
    out: list[tuple[str, str, str | None]] = []
    for mode in modes:
        if mode == "crag":
            out += [(f"crag/{st}", "crag", st) for st in styles]
        else:
            out.append((mode, mode, "generative"))
    return out
