"""Section 3: grading cost per chunk, every grader against the tutorial's LLM grader.

The chunks are the top 5 that retrieval returns for ai-information questions from an
index of the two PDFs; every grader sees the same (question, chunks). The tutorial grader
(seed 001 ``evaluate_document_relevance``: generate up to 5 tokens at T=0, regex the
number) runs on the local generator model. Models are loaded before timing starts; each
repetition builds a fresh grader the way ``Pipeline.grader`` does (untimed: that is warm-up
work, once per index), so no embedding memo carries over between repetitions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bench import Row, Section, Stat, TimedEmbedder, baseline, fixtures, fmt, log, ratio


def _cases(n_questions: int) -> list[tuple[str, list[Any]]]:
    from localcrag.crag.retrieve import Retriever
    from localcrag.settings import Settings

    fixtures.indexed()
    r = Retriever(Settings.load())
    return [
        (q, [h.chunk for h in r.search(q, k=5)]) for q, _ in fixtures.val_questions()[:n_questions]
    ]


def run(quick: bool) -> Section:
    from localcrag.crag.grade import GRADERS
    from localcrag.crag.pipeline import Pipeline
    from localcrag.ingest.library import Library
    from localcrag.llm.gguf import load_llm
    from localcrag.settings import Settings

    sec = Section("3. Grading cost")
    reps, per_rep = (2, 1) if quick else (5, 2)
    cases = _cases(reps * per_rep)  # new questions every repetition: LocalLLM memoises scores
    batches = [cases[r * per_rep : (r + 1) * per_rep] for r in range(reps)]
    warm_case = ("Which topics does this document cover?", cases[0][1])
    s = Settings.load()
    lib = Library(s)
    gen = load_llm(
        s.model_path(s.models.generator), n_ctx=s.generation.n_ctx, threads=s.generation.threads
    )
    kinds = [s.evaluator.grader] + [k for k in GRADERS if k != s.evaluator.grader]
    if quick:  # the default, the fusion and the reader side by side
        kinds = list(dict.fromkeys([s.evaluator.grader, "fusion", "reader"]))
    embedded: dict[str, int] = {}

    def grader_fn(name: str, kind: str, embedder: Any) -> Callable[[list], tuple[float, int]]:
        ks = s.merged({"grader": kind})
        Pipeline(ks, library=Library(ks, embedder=embedder, store=lib.store)).grader.grade(
            *warm_case
        )  # load GGUFs

        def go(cases: list) -> tuple[float, int]:
            """A fresh grader exactly as the pipeline builds it (untimed), then grade (timed)."""
            timed = TimedEmbedder(embedder)
            grader = Pipeline(ks, library=Library(ks, embedder=timed, store=lib.store)).grader
            timed.texts = 0
            t = time.perf_counter()
            for q, chunks in cases:
                grader.grade(q, chunks)
            embedded[name] = embedded.get(name, 0) + timed.texts
            return time.perf_counter() - t, sum(len(c) for _, c in cases)

        return go

    parsed: list[bool] = []

    def tutorial(cases: list) -> tuple[float, int]:
        t = time.perf_counter()
        for q, chunks in cases:
            parsed.extend(baseline.grade_parsed(gen, q, c.text)[1] for c in chunks)
        return time.perf_counter() - t, sum(len(c) for _, c in cases)

    fns = {k: grader_fn(k, k, lib.embedder) for k in kinds}
    fns["tutorial"] = tutorial
    log(f"grading: {per_rep} new question(s) x 5 chunks per rep, {reps} reps, graders {list(fns)}")
    samples: dict[str, Stat] = {n: Stat([]) for n in fns}
    n_chunks = 0
    for r in range(reps):  # interleaved, rotating order; every grader sees the same chunks
        names = list(fns)
        for n in names[r % len(names) :] + names[: r % len(names)]:
            sec_, n_chunks = fns[n](batches[r])
            samples[n].samples.append(sec_ / n_chunks)
    rows = []
    tut = samples["tutorial"]
    for n, st in samples.items():
        if n == "tutorial":
            label = "tutorial: generate a number + regex (seed 001), " + gen.name
        else:
            label = f"localcrag `{n}` grader" + (" (default)" if n == s.evaluator.grader else "")
        rows.append(
            Row(
                label,
                {
                    "ms per chunk": f"{fmt(st.median * 1000, 1)} ({fmt(st.lo * 1000, 1)}–"
                    f"{fmt(st.hi * 1000, 1)})",
                    "chunks/s": fmt(1 / st.median, 1),
                    "texts embedded per chunk": fmt(embedded[n] / (reps * n_chunks), 1)
                    if n in embedded
                    else "—",
                    "tutorial / this": fmt(ratio(tut, st), 1) + "×",
                },
            )
        )
    sec.tables.append(
        (
            f"{per_rep} question(s) × 5 retrieved chunks per repetition, new questions each "
            f"repetition ({len(cases)} ai-information questions); median (min–max) of {reps} "
            "interleaved repetitions",
            rows,
        )
    )
    bad = parsed.count(False)
    sec.notes.append(
        f"The tutorial grader's output had no number for {bad} of {len(parsed)} chunks "
        "(the seed then silently returns 0.5)."
    )
    r = ratio(tut, samples[s.evaluator.grader])
    sec.targets.append(
        (
            f"default grader (`{s.evaluator.grader}`) ≥ 20× cheaper per chunk than the tutorial grader",
            f"{r:.1f}×",
            r >= 20,
        )
    )
    ms = samples[s.evaluator.grader].median * 1000
    sec.targets.append(
        (
            f"default grader (`{s.evaluator.grader}`) ≤ 30 ms per chunk on 2 cores",
            f"{ms:.1f} ms",
            ms <= 30,
        )
    )
    return sec
