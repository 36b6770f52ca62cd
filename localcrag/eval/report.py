"""Turn a results dict into a terminal table, a Markdown report and PNG charts.

Pure functions from the results dict: the CLI prints or writes what they return, and a
saved results.json can be re-rendered later.
"""

from __future__ import annotations

import json
from pathlib import Path

from localcrag.eval.answers import STAGES
from localcrag.eval.metrics import RECALL_RIGHT, roc_curve
from localcrag.eval.report_pairs import fmt as _fmt
from localcrag.eval.report_pairs import pair_chart, pair_lines
from localcrag.eval.report_pairs import table as _table

ANSWER_METRICS = [
    ("wrong_answer_rate", "wrong answer rate (of answers given)"),
    ("wrong_refusal_rate", "wrong refusal rate (of refusals)"),
    ("wrong_under_correct", "wrong answers under the CORRECT badge (a count)"),
    ("decision_accuracy", "decision accuracy"),
    ("answer_f1", "answer token F1"),
    ("short_answer_f1", "short answer token F1 (the bold span; the quote without one)"),
    ("answer_recall", "answer token recall"),
    ("unsupported_rate", "unsupported answers (a content word not in the evidence)"),
    ("draft_unsupported_rate", "model drafts with one (before the sentence check)"),
    ("refusal_accuracy", "refusal accuracy"),
    ("evidence_recall", "gold units in evidence"),
    ("recall_at_k", "retrieval recall@k"),
    ("mrr_at_k", "retrieval MRR@k"),
]
# Elapsed times count from the question received, over every question; a stage's figure is
# how long that stage took, over the questions that ran it (a refusal never generates), so a
# stage p50 can exceed the total p50 and the labels say which is which.
TIME_METRICS = [
    ("first_token_ms_p50", "first token p50 (ms after the question)"),
    ("total_ms_p50", "answer done p50 (ms after the question)"),
]
KINDS = [
    ("easy", "other article"),
    ("hard", "same article"),
    ("near_miss", "unanswerable, own paragraph"),
    ("ablated", "own paragraph, answer sentences cut"),
]


def _stages(modes: dict) -> list[str]:
    """Stages with a timing, in pipeline order."""
    seen = {s for mo in modes.values() for s in (mo.get("latency_ms_p50") or {})}
    return [s for s in STAGES if s in seen]


def _rows(res: dict) -> list[tuple[str, list[str]]]:
    modes = res["modes"]
    out = [("answer style", [modes[mo].get("style") or "-" for mo in modes])]
    out += [(label, [_fmt(modes[mo].get(key)) for mo in modes]) for key, label in ANSWER_METRICS]
    out += [(label, [_fmt(modes[mo].get(key), 1) for mo in modes]) for key, label in TIME_METRICS]
    stages = _stages(modes)
    out += [
        (
            f"{s} stage p50 (ms; over {_runs(modes, s)} questions)",
            [_fmt((modes[mo].get("latency_ms_p50") or {}).get(s), 1) for mo in modes],
        )
        for s in stages
    ]
    return [(label, vals) for label, vals in out if any(v != "-" for v in vals)]


def _runs(modes: dict, stage: str) -> str:
    """How many questions ran ``stage``, per mode ("7/10" or "7/10, 10/10")."""
    return ", ".join(
        f"{(mo.get('latency_runs') or {}).get(stage, 0)}/{mo.get('n', 0)}" for mo in modes.values()
    )


def terminal_table(res: dict, decisions: bool = True) -> str:
    """Plain aligned text: readable on a terminal and in a log file alike (``decisions``:
    with the CRAG decisions lines; report.md gives them a section of their own)."""
    e = res.get("evaluator") or {}
    counted = (
        f"{e['pairs']} pairs"
        if e.get("families") is not None
        else f"{res['questions']} questions, k={res['k']}"
    )
    head = (
        f"{res['dataset']}: {counted}, seed={res['seed']}"
        f"{', only ' + res['only'] if res.get('only') else ''}  ({res['elapsed_s']} s)"
    )
    out = [head]  # each block below brings its one blank line
    out += trust_lines(res["modes"])
    if res["modes"] and (rows := _rows(res)):
        out += [
            "",
            *_table(
                ["metric", *[mo.upper() for mo in res["modes"]]],
                [[label, *vals] for label, vals in rows],
            ),
        ]
    r = res.get("retrieval")
    if r:
        out += [
            "",
            f"retrieval over {r['questions']} questions (gold units in the top {r['k']}, "
            f"each document ranked by its best chunk among the {r['pool']} retrieved per question):",
        ]
        out += _table(
            ["search", f"recall@{r['k']}", f"MRR@{r['k']}"],
            [
                [mode, _fmt(v["recall_at_k"]), _fmt(v["mrr_at_k"])]
                for mode, v in r["by_mode"].items()
            ],
        )
    if e.get("families") is not None:
        out += ["", *pair_lines(e)]
    elif e.get("pairs"):
        out += [
            "",
            f"retrieval evaluator ({e['grader']}, {e['pairs']} pairs, {_fmt(e['ms_per_chunk'], 1)} ms/chunk):",
        ]
        out += _table(
            ["relevant vs", "AUC", "mean score", f">= lower {e['lower_threshold']}"],
            [
                [
                    f"{k} ({desc})",
                    _fmt(e.get(f"auc_{k}")),
                    _fmt(e["by_kind"][k]["mean"]),
                    _fmt(e["by_kind"][k]["at_or_above_lower"]),
                ]
                for k, desc in KINDS
            ]
            + [
                [
                    "relevant itself",
                    "",
                    _fmt(e["by_kind"]["relevant"]["mean"]),
                    _fmt(e["by_kind"]["relevant"]["at_or_above_lower"]),
                ]
            ],
        )
        out.append(
            f"accuracy at lower {e['lower_threshold']}: {_fmt(e['accuracy'])}, "
            f"at upper {e['upper_threshold']}: {_fmt(e['accuracy_upper'])}, AUC all: {_fmt(e['auc_all'])}"
        )
    if decisions and res.get("decisions"):
        out += ["", *decision_lines(res["decisions"])]
    return "\n".join(out)


TRUST_RULE = (
    f"right: answered and the answer contains a reference answer (SQuAD-normalised) or at least "
    f"{RECALL_RIGHT:g} of the shortest reference's words; wrong answer rate = wrong answers / answers "
    f"given, wrong refusal rate = wrong refusals / refusals"
)


def trust_lines(modes: dict) -> list[str]:
    """The trust table, one row per column that answered: right / wrong answers and right /
    wrong refusals against the references, and the two headline rates (docs/eval.md)."""
    tables = {
        mo: t
        for mo, v in modes.items()
        if (t := v.get("trust")) and t["answerable"]["n"] + t["unanswerable"]["n"]
    }
    if not tables:
        return []
    unjudged = any(t["unjudged"] for t in tables.values())
    rows = []
    for mo, t in tables.items():
        n = t["unanswerable"]["wrong_answer"]
        rows.append(
            [
                mo.upper(),
                str(t["right_answer"]),
                f"{t['wrong_answer']} ({n} unanswerable)" if n else str(t["wrong_answer"]),
                str(t["right_refusal"]),
                str(t["wrong_refusal"]),
                _fmt(t["wrong_answer_rate"]),
                _fmt(t["wrong_refusal_rate"]),
            ]
            + ([str(t["unjudged"])] if unjudged else [])
        )
    header = [
        "trust",
        "right answers",
        "wrong answers",
        "right refusals",
        "wrong refusals",
        "wrong answer rate",
        "wrong refusal rate",
    ] + (["answered, no reference"] if unjudged else [])
    first = next(iter(tables.values()))
    return [
        "",
        f"trust against the reference answers ({first['answerable']['n']} answerable, "
        f"{first['unanswerable']['n']} unanswerable questions):",
        *_table(header, rows),
        TRUST_RULE,
    ]


def decision_lines(d: dict) -> list[str]:
    """``--only decisions``: actions, answered / refused shares, thresholds and (``--withhold
    gold``) the withheld run; the one wording of these figures (terminal and report.md)."""
    y, n = d["answerable"], d["unanswerable"]
    out = [
        f"CRAG decisions ({d['grader']}, no generation): accuracy {_fmt(d['decision_accuracy'])}; "
        f"answerable {y['n']}: {y['correct']} correct / {y['ambiguous']} ambiguous / {y['incorrect']} "
        f"incorrect (answered {_fmt(y['answered_share'])}); unanswerable {n['n']}: {n['correct']} / "
        f"{n['ambiguous']} / {n['incorrect']} (refused {_fmt(n['refused_share'])}); "
        f"{_fmt(d['grade_ms_per_question'], 1)} ms grading per question"
    ]
    if th := d.get("thresholds"):
        out.append(f"thresholds lower {th['lower']:.2f} / upper {th['upper']:.2f}: {th['basis']}")
    return out + withheld_lines(d)


def _decisions_markdown(res: dict) -> list[str]:
    """The decisions section: :func:`decision_lines` as a list, then the action per question."""
    d = res["decisions"]
    questions = {it["qid"]: it["question"] for it in res.get("items", [])}
    withheld = {it["qid"]: it for it in (d.get("withheld") or {}).get("items", [])}
    out = ["## CRAG decisions", ""]
    for line in decision_lines(d):
        out.append(("  - " if line.startswith(" ") else "- ") + line.strip())
    out += [
        "",
        "| question | answerable | action | best score | right |"
        + (" gold withheld: action / best |" if withheld else ""),
        "|---|---|---|---|---|" + ("---|" if withheld else ""),
    ]
    for it in d.get("items", []):
        q = questions.get(it["qid"], it["qid"]).replace("|", "\\|")[:90]
        row = (
            f"| {q} | {'yes' if it['answerable'] else 'no'} | {it['action']} | {_fmt(it['best'])} | "
            f"{'yes' if it['ok'] else 'no'} |"
        )
        if withheld:
            w = withheld.get(it["qid"])
            row += f" {w['action']} / {_fmt(w['best'])} |" if w else " |"
        out.append(row)
    return out + [""]


def withheld_lines(d: dict) -> list[str]:
    """``--withhold gold``: the answer-free run beside the normal run's answered share."""
    w = d.get("withheld")
    if not w:
        return []
    q, g = w["best_quantiles"], d["goal"]
    return [
        f"gold withheld ({w['questions']} answerable questions, {w['chunks_withheld_mean']} chunks withheld "
        f"each): refused {_fmt(w['refused_share'])}, ambiguous {_fmt(w['ambiguous_share'])}, correct "
        f"{_fmt(w['correct_share'])}; best score p10/p50/p90 {_fmt(q['p10'])}/{_fmt(q['p50'])}/{_fmt(q['p90'])}",
        f"  answer text still among the graded chunks: {_fmt(w['answer_seen_share'])} (refused where it is "
        f"not: {_fmt(w['refused_share_answer_unseen'])} of {w['answer_unseen_n']}); the check finds the answer "
        f"in {_fmt(d['answerable']['answer_seen_when_gold_graded'])} of normal runs that graded a gold unit",
        f"  goals: answered {_fmt(g['answered_share'])} (>= 0.9), refused with the gold withheld "
        f"{_fmt(g['withheld_refused_share'])} (>= 0.8): {'met' if g['met'] else 'not met'}; AUC full vs "
        f"withheld best score {_fmt(g['auc_full_vs_withheld'])}; in-sample: a lower threshold of "
        f"{_fmt(g['in_sample_lower_for_90'])} answers 90% and refuses {_fmt(g['in_sample_refused_at_90'])}",
    ]


def markdown(res: dict, charts: list[str] | None = None) -> str:
    s = res["settings"]
    e = res.get("evaluator") or {}
    if e.get("families") is not None:  # labelled pairs: no questions, index or generator
        intro = (
            f"`{res['path']}`: {e['pairs']} pairs ({e['per_family']} per family, seed {res['seed']}), "
            f"{res['elapsed_s']} s. Embedder {s['embedder']}, grader {s['grader']}"
            f"{' (' + s['grader_model'] + ')' if s.get('grader_model') else ''}, "
            f"thresholds {s['lower_threshold']}/{s['upper_threshold']}."
        )
    else:
        intro = (
            f"`{res['path']}`: {res['questions']} questions (limit {res['limit']}, seed {res['seed']}), "
            f"k = {res['k']}, {res['elapsed_s']} s. Embedder {s['embedder']}, generator {s['generator']}, "
            f"grader {s['grader']} (thresholds {s['lower_threshold']}/{s['upper_threshold']}), "
            f"retrieval {s['retrieval_mode']}, {'offline' if s['offline'] else 'online'}, "
            f"temperature {s['temperature']}. The index holds {res['index']['chunks']} chunks."
        )
    out = [f"# localcrag eval: {res['dataset']}", "", intro, ""]
    text = (
        terminal_table(res, decisions=False).partition("\n")[2].strip("\n")
    )  # without the head line
    if text.strip():
        out += ["```", text, "```", ""]
    if res.get("decisions"):
        out += _decisions_markdown(res)
    for c in charts or []:
        out += [f"![{Path(c).stem}]({Path(c).name})", ""]
    items = [it for it in res.get("items", []) if any(mo in it for mo in res["modes"])]
    if items:
        modes = [mo for mo in res["modes"]]
        out += [
            "## Per question",
            "",
            "| question | answerable | "
            + " | ".join(f"{mo.upper()} action / F1 / trust" for mo in modes)
            + " |",
            "|---|---|" + "---|" * len(modes),
        ]
        for it in items:
            cells = []
            for mo in modes:
                r = it.get(mo) or {}
                cells.append(
                    "error"
                    if "error" in r
                    else f"{r.get('action') or '-'} / {_fmt(r.get('f1'), 2)} / "
                    f"{(r.get('outcome') or '-').replace('_', ' ')}"
                )
            q = it["question"].replace("|", "\\|")[:90]
            out.append(
                f"| {q} | {'yes' if it['answerable'] else 'no'} | " + " | ".join(cells) + " |"
            )
    return "\n".join(out) + "\n"


def write_charts(res: dict, out: Path) -> list[str]:
    """CRAG vs RAG per metric, latency per stage, retrieval per search mode, evaluator ROC."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    written: list[str] = []

    def save(fig, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        written.append(str(out / name))

    modes = res["modes"]
    groups = [
        (key, label)
        for key, label in ANSWER_METRICS  # retrieval has its own chart
        if key not in ("recall_at_k", "mrr_at_k")
        and any(modes[mo].get(key) is not None for mo in modes)
    ]
    if modes and groups:
        fig, ax = plt.subplots(figsize=(9, 4))
        x, w = np.arange(len(groups)), 0.8 / len(modes)
        for i, mo in enumerate(modes):
            vals = [modes[mo].get(key) or 0.0 for key, _ in groups]
            ax.bar(x + i * w - 0.4 + w / 2, vals, w, label=mo.upper())
        ax.set_xticks(x, [label for _, label in groups], rotation=20, ha="right")
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{res['dataset']}: CRAG vs RAG ({res['questions']} questions)")
        ax.legend()
        save(fig, "crag_vs_rag.png")
    stages = _stages(modes)
    if stages:
        fig, ax = plt.subplots(figsize=(8, 3.5))
        names = stages + ["first token"]
        x, w = np.arange(len(names)), 0.8 / len(modes)
        for i, mo in enumerate(modes):
            lat = modes[mo].get("latency_ms_p50") or {}
            vals = [lat.get(s) or 0.0 for s in stages] + [
                modes[mo].get("first_token_ms_p50") or 0.0
            ]
            ax.bar(x + i * w - 0.4 + w / 2, vals, w, label=mo.upper())
        ax.set_xticks(x, names)
        ax.set_ylabel("median ms")
        ax.set_title("latency per stage")
        ax.legend()
        save(fig, "latency.png")
    r = res.get("retrieval")
    if r:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        names = list(r["by_mode"])
        x = np.arange(len(names))
        ax.bar(
            x - 0.2,
            [r["by_mode"][n]["recall_at_k"] or 0 for n in names],
            0.4,
            label=f"recall@{r['k']}",
        )
        ax.bar(
            x + 0.2, [r["by_mode"][n]["mrr_at_k"] or 0 for n in names], 0.4, label=f"MRR@{r['k']}"
        )
        ax.set_xticks(x, names)
        ax.set_ylim(0, 1.05)
        ax.set_title(f"retrieval ({r['questions']} questions)")
        ax.legend()
        save(fig, "retrieval.png")
    e = res.get("evaluator") or {}
    if e.get("scores") and e["scores"].get("relevant"):
        fig, ax = plt.subplots(figsize=(5, 5))
        for kind, _desc in KINDS:
            fpr, tpr = roc_curve(e["scores"]["relevant"], e["scores"][kind])
            if fpr:
                ax.plot(fpr, tpr, label=f"{kind} (AUC {_fmt(e.get('auc_' + kind))})")
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":")
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        ax.set_title(f"retrieval evaluator ROC ({e['grader']})")
        ax.legend(loc="lower right")
        save(fig, "evaluator_roc.png")
    if e.get("families"):
        save(pair_chart(e, plt, np), "evaluator_families.png")
    return written


def write_report(res: dict, out: Path) -> list[Path]:
    """report.md, results.json and the charts, in ``out`` (created)."""
    out.mkdir(parents=True, exist_ok=True)
    charts = write_charts(res, out)
    (out / "results.json").write_text(
        json.dumps(res, indent=1, ensure_ascii=False, default=str), encoding="utf-8"
    )
    (out / "report.md").write_text(markdown(res, charts), encoding="utf-8")
    return [out / "report.md", out / "results.json", *map(Path, charts)]
