"""Section: how soon an answer starts after grading, extractive against generative.

The target: an extractive answer (evidence sentences quoted, no generation) starts
<= 300 ms after grading, warm. One in-process ``Pipeline`` (models loaded by ``warm_up``),
offline, CRAG, on the val.json questions that are answerable (eval's labels, which fix the
DAC question the data README flags), each asked with ``style="extractive"`` and
``style="generative"``, the two styles alternating which goes first.

"After grading" is measured where the user sees it: the wall time from the pipeline's
``StageFinished("grade")`` event to its first ``Token`` event, read by the consumer of the
event stream. The pipeline's own ``timings_ms.first_token`` (from the start of the run) is
reported beside it.
"""

from __future__ import annotations

import time

from bench import DATA, Row, Section, Stat, fixtures, log, spread

STYLES = ("extractive", "generative")
TARGET_MS = 300.0


def answerable_questions() -> list[str]:
    from localcrag.eval.datasets import load_ai_information

    ds = load_ai_information(DATA / "ai-information" / "val.json")
    return [q.question for q in ds.questions if q.answerable]


def ask(pipe, question: str, style: str) -> dict:
    """One warm run: ms from the end of grading to the first token, the run's first_token
    timing, the total, and the answer's style and action."""
    from localcrag import events as ev

    t0 = time.perf_counter()
    graded = first = None
    done = None
    for e in pipe.run(question, mode="crag", style=style, confirm_web=lambda _: False):
        now = time.perf_counter()
        if isinstance(e, ev.StageFinished) and e.stage == "grade":
            graded = now
        elif isinstance(e, ev.Token) and first is None:
            first = now
        elif isinstance(e, ev.AnswerDone):
            done = e
    total = time.perf_counter() - t0
    answer = done.answer if done else None
    after = (first - graded) * 1000 if first is not None and graded is not None else None
    return {
        "after_grade_ms": after,
        "first_token_ms": (done.timings_ms.get("first_token") if done else None),
        "total_ms": total * 1000,
        "style": getattr(answer, "style", None),
        "outcome": "refused"
        if answer is None or answer.refused
        else (answer.action.value if answer.action else "-"),
    }


def measure(questions: list[str], reps: int) -> dict[str, list[dict]]:
    from localcrag.crag.pipeline import Pipeline
    from localcrag.settings import Settings

    s = Settings.load()
    s.web.offline = True
    pipe = Pipeline(s)
    pipe.warm_up()
    for style in STYLES:  # first runs build lazy state (grader statistics, FTS index)
        ask(pipe, questions[0], style)
    out: dict[str, list[dict]] = {st: [] for st in STYLES}
    for r in range(reps):
        for i, q in enumerate(questions):
            for style in STYLES if (i + r) % 2 == 0 else STYLES[::-1]:
                out[style].append(ask(pipe, q, style))
    return out


def run(quick: bool) -> Section:
    sec = Section("6. Answer styles: first token after grading (`Pipeline.run(style=...)`)")
    fixtures.indexed()
    qs = answerable_questions()
    reps = 1 if quick else 3
    log(f"answers: {len(qs)} answerable val.json questions x {len(STYLES)} styles x {reps} rep(s)")
    runs = measure(qs, reps)
    rows, med = [], {}
    for style, rs in runs.items():
        after = [r["after_grade_ms"] for r in rs if r["after_grade_ms"] is not None]
        med[style] = Stat(after).median if after else None
        outcomes = [f"{r['outcome']}/{r['style']}" for r in rs]
        rows.append(
            Row(
                style,
                {
                    "after grading ms": spread(Stat(after), digits=0) if after else "-",
                    "first token ms (from start)": spread(
                        Stat([r["first_token_ms"] for r in rs]), digits=0
                    ),
                    "total ms": spread(Stat([r["total_ms"] for r in rs]), digits=0),
                    "outcomes (action/style)": ", ".join(
                        f"{o}×{outcomes.count(o)}" for o in dict.fromkeys(outcomes)
                    ),
                },
            )
        )
    sec.tables.append(
        (
            f"Warm, CRAG, offline, {len(qs)} answerable val.json questions × {reps} run(s) per "
            "style, median (min–max)",
            rows,
        )
    )
    ext, gen = med["extractive"], med["generative"]
    sec.targets.append(
        (
            f"extractive answer: first token ≤ {TARGET_MS:.0f} ms after grading, warm (median)",
            f"{ext:.0f} ms (generative {gen:.0f} ms)"
            if ext is not None and gen is not None
            else "no answer started",
            ext is not None and ext <= TARGET_MS,
        )
    )
    sec.data = {
        "questions": len(qs),
        "reps": reps,
        "target_ms": TARGET_MS,
        "after_grade_ms_p50": med,
        "runs": runs,
    }
    sec.notes.append(
        "'After grading' is the wall time between the pipeline's end-of-grading event and "
        "its first token, as the consumer of the event stream sees them (refinement and, "
        "for generative, the prompt and the first decoded tokens lie in between)."
    )
    return sec
