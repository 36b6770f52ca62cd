"""Section 4: `ask` end to end, CRAG against RAG, warm and cold.

Warm: one in-process ``Pipeline`` (models loaded by ``warm_up``), offline, the same
ai-information questions in both modes, modes alternating. Time to first token is the
pipeline's ``timings_ms.first_token``; total is the wall time of the whole run.
Cold: a new process ``python -m localcrag ask Q --json --offline --style generative [--mode rag]`` per run.
Cold time to first token = process wall time − (Σ stage times − first_token): the part
of the answer streamed after the first token is subtracted. The stage sum leaves out the
small gaps between stages, so this slightly *over*-states the cold TTFT (conservative).

The CRAG/RAG TTFT ratios pair runs of the same question and count only questions CRAG
answered: an offline refusal (Incorrect) generates nothing and "answers" in milliseconds,
which would flatter CRAG; refusals are reported apart (how many, and their TTFT).
"""

from __future__ import annotations

import json
import sys
import time

from bench import Row, Section, Stat, log, ratio, run_process, spread
from bench import fixtures

STAGES = ("retrieve", "grade", "refine", "web", "generate")
COLD_RSS_MB: dict[str, list[float]] = {}  # peak RSS of every cold `ask` by side, for section 5


def warm(questions: list[str]) -> dict[str, dict[str, list[float]]]:
    """{mode: {"ttft": [...], "total": [...], "action": [...]}} per question, in order."""
    from localcrag import events as ev
    from localcrag.crag.pipeline import Pipeline
    from localcrag.settings import Settings

    s = Settings.load()
    s.offline = True
    s.answer_style = "generative"  # both modes generate: the ratio compares prompts, not quoting
    pipe = Pipeline(s)
    pipe.warm_up()
    list(pipe.run(questions[0], mode="crag"))  # first run builds lazy state (grader, FTS)
    out = {m: {"ttft": [], "total": [], "action": []} for m in ("crag", "rag")}
    for i, q in enumerate(questions):
        for mode in (("crag", "rag") if i % 2 == 0 else ("rag", "crag")):
            t = time.perf_counter()
            done = [e for e in pipe.run(q, mode=mode, confirm_web=lambda _: False) if isinstance(e, ev.AnswerDone)]
            out[mode]["total"].append(time.perf_counter() - t)
            out[mode]["ttft"].append(done[-1].timings_ms["first_token"] / 1000)
            a = done[-1].answer
            out[mode]["action"].append("refused" if a.refused else (a.action.value if a.action else "rag"))
    return out


def answered_pairs(crag: list[float], rag: list[float], crag_refused: list[bool]) -> tuple[list[float], list[float]]:
    """The (CRAG, RAG) samples of the questions CRAG answered (paired by question)."""
    keep = [i for i, refused in enumerate(crag_refused) if not refused]
    return [crag[i] for i in keep], [rag[i] for i in keep]


def refusal_note(where: str, ttft: list[float], refused: list[bool]) -> str:
    """How many CRAG runs were refusals, and how fast: reported apart from the ratio."""
    times = [t for t, r in zip(ttft, refused) if r]
    if not times:
        return f"{where}: CRAG refused none of the {len(refused)} questions."
    return (f"{where}: CRAG refused {len(times)} of {len(refused)} questions offline (Incorrect, no "
            f"generation); their TTFT {spread(Stat(times))} s is left out of the CRAG/RAG ratio.")


def cold(cmd: list[str], side: str) -> tuple[float, float, bool]:
    """(cold TTFT, wall, refused) of one new process; records its peak RSS under ``side``."""
    p = run_process(cmd, env=fixtures.env())
    if p.rc != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}... exited {p.rc}: {p.stderr[-500:]}")
    out = json.loads(p.stdout.strip().splitlines()[-1])
    t = out["timings_ms"]
    after_first = sum((t.get(k) or 0.0) for k in STAGES) - (t.get("first_token") or 0.0)
    COLD_RSS_MB.setdefault(side, []).append(p.rss_mb)
    return p.wall - max(0.0, after_first) / 1000, p.wall, bool(out["refused"])


def run(quick: bool) -> Section:
    sec = Section("4. End to end (`ask`)")
    fixtures.indexed()
    qs = [q for q, _ in fixtures.val_questions()]
    n = 4 if quick else 5  # alternating answerable / unanswerable (fixtures.val_questions)
    log(f"e2e: warm, {n} questions x 2 modes")
    w = warm(qs[:n])
    rows = []
    for mode in ("crag", "rag"):
        acts = ", ".join(f"{a}×{w[mode]['action'].count(a)}" for a in dict.fromkeys(w[mode]["action"]))
        rows.append(Row(mode.upper(), {"TTFT s": spread(Stat(w[mode]["ttft"])),
                                       "total s": spread(Stat(w[mode]["total"])), "outcomes": acts}))
    warm_refused = [a == "refused" for a in w["crag"]["action"]]
    crag_ok, rag_ok = answered_pairs(w["crag"]["ttft"], w["rag"]["ttft"], warm_refused)
    if crag_ok:  # the rows the ratio compares
        for label, xs in (("CRAG, the questions it answered", crag_ok), ("RAG, the same questions", rag_ok)):
            rows.append(Row(label, {"TTFT s": spread(Stat(xs)), "outcomes": f"{len(xs)} questions"}))
    sec.tables.append((f"Warm (in-process Pipeline, models loaded), {n} ai-information questions, "
                       "median (min–max)", rows))
    r_warm = ratio(crag_ok, rag_ok) if crag_ok else float("nan")

    cold_reps = 1 if quick else 5
    base = [sys.executable, "-m", "localcrag", "ask"]
    sides = {"crag": lambda q: base + [q, "--json", "--offline", "--style", "generative"]}
    if not quick:  # quick: one cold CRAG run only (each cold run costs 10-30 s here)
        sides["rag"] = lambda q: base + [q, "--json", "--offline", "--style", "generative", "--mode", "rag"]
    log(f"e2e: cold, {cold_reps} runs x {len(sides)} sides")
    c: dict[str, dict[str, list]] = {k: {"ttft": [], "wall": [], "refused": []} for k in sides}
    for i in range(cold_reps):
        q = qs[i % len(qs)]
        names = list(sides)
        for k in names[i % len(names):] + names[:i % len(names)]:
            ttft, wall, refused = cold(sides[k](q), k)
            c[k]["ttft"].append(ttft)
            c[k]["wall"].append(wall)
            c[k]["refused"].append(refused)
    labels = {"crag": "CRAG: `python -m localcrag ask Q --json --offline --style generative`",
              "rag": "RAG: same with `--mode rag`"}
    rows = [Row(labels[k], {"cold TTFT s": spread(Stat(v["ttft"])), "process wall s": spread(Stat(v["wall"]))})
            for k, v in c.items()]
    sec.tables.append((f"Cold (a new process per run, {cold_reps} run(s) each, interleaved), median (min–max)", rows))
    sec.targets.append((f"CRAG TTFT no worse than RAG's, warm (CRAG/RAG, paired by question, over the "
                        f"{len(crag_ok)} of {n} questions CRAG answered)", f"{r_warm:.2f}×",
                        (r_warm <= 1.0) if crag_ok else None))
    sec.notes.append(refusal_note("Warm", w["crag"]["ttft"], warm_refused))
    if "rag" in c:
        crag_c, rag_c = answered_pairs(c["crag"]["ttft"], c["rag"]["ttft"], c["crag"]["refused"])
        r_cold = ratio(crag_c, rag_c) if crag_c else float("nan")
        sec.targets.append((f"CRAG TTFT no worse than RAG's, cold (paired by question, over the "
                            f"{len(crag_c)} of {cold_reps} runs CRAG answered)", f"{r_cold:.2f}×",
                            (r_cold <= 1.0) if crag_c else None))
        sec.notes.append(refusal_note("Cold", c["crag"]["ttft"], c["crag"]["refused"]))
    med = Stat(c["crag"]["ttft"]).median
    sec.targets.append(("cold start to first token ≤ 15 s on this machine (CRAG, all runs)", f"{med:.1f} s",
                        med <= 15))
    sec.notes.append("Both modes run with answer_style = generative here (the default quotes with the bundled "
                     "model; section 6 measures that). RAG always generates; CRAG generates from refined strips when it answers, so "
                     "the ratios compare the same questions answered both ways.")
    return sec
