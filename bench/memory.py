"""Section 5: peak resident memory of `ingest` and `ask`, each in a new process.

Peak RSS comes from ``os.wait4`` on the child (its own ``ru_maxrss``). `ingest` runs on the
ai-information PDFs into a fresh LOCALCRAG_HOME each time; `ask` numbers are the cold runs
of section 4 when it ran in the same bench run (else this section runs its own).
"""

from __future__ import annotations

import sys

from bench import PDFS, Row, Section, Stat, e2e, fixtures, fmt, log, run_process, temp_home


def _ingest(cmd: list[str]) -> float:
    import os

    with temp_home("lcbench-mem-") as home:
        env = dict(os.environ, LOCALCRAG_HOME=str(home))
        p = run_process(cmd + [str(x) for x in PDFS], env=env)
    if p.rc != 0:
        raise RuntimeError(f"ingest exited {p.rc}: {p.stderr[-500:]}")
    return p.rss_mb


def run(quick: bool) -> Section:
    sec = Section("5. Memory (peak RSS)")
    reps = 1 if quick else 5
    sides = {"ingest": [sys.executable, "-m", "localcrag", "ingest", "--json"]}
    log(f"memory: ingest, {reps} run(s) x {len(sides)} sides")
    rss: dict[str, list[float]] = {k: [] for k in sides}
    for i in range(reps):
        names = list(sides)
        for k in names[i % len(names) :] + names[: i % len(names)]:
            rss[k].append(_ingest(sides[k]))
    if not e2e.COLD_RSS_MB:
        log("memory: ask (section 4 did not run)")
        q = fixtures.val_questions()[0][0]
        fixtures.indexed()
        for _ in range(reps):
            e2e.cold([sys.executable, "-m", "localcrag", "ask", q, "--json", "--offline"], "crag")
            e2e.cold(
                [
                    sys.executable,
                    "-m",
                    "localcrag",
                    "ask",
                    q,
                    "--json",
                    "--offline",
                    "--mode",
                    "rag",
                ],
                "rag",
            )
    labels = {
        "ingest": "`localcrag ingest` (2 PDFs, fresh index)",
        "crag": "`localcrag ask --offline` (CRAG)",
        "rag": "`localcrag ask --offline --mode rag`",
    }
    rows = []
    for k, v in list(rss.items()) + list(e2e.COLD_RSS_MB.items()):
        st = Stat(v)
        rows.append(
            Row(
                labels.get(k, k),
                {
                    "runs": len(v),
                    "peak RSS MB": fmt(st.median, 0),
                    "min–max MB": f"{fmt(st.lo, 0)}–{fmt(st.hi, 0)}",
                },
            )
        )
    sec.tables.append(("A new process per run; median of the runs", rows))
    ask = Stat(e2e.COLD_RSS_MB.get("crag", []) + e2e.COLD_RSS_MB.get("rag", []))
    sec.targets.append(
        ("`ask` peak RSS < 2 GB with the bundled models", f"{ask.hi:,.0f} MB (max)", ask.hi < 2048)
    )
    return sec
