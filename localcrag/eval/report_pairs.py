"""The qa-pairs evaluator's report lines and chart (``localcrag eval qa-pairs``), and the
two formatting helpers every report section shares (:func:`fmt`, :func:`table`).

Pure functions of the results dict, as in :mod:`localcrag.eval.report`.
"""

from __future__ import annotations


def fmt(x: object, digits: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}f}" if abs(x) < 100 else f"{x:,.0f}"
    return str(x)


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))
        )

    return [line(header), "  ".join("-" * w for w in widths), *map(line, rows)]


PAIR_NOTE = (
    "AUC: label 1 (the passage holds the answer) vs label 0, each pair scored alone; "
    "'vs KIND': the family's positives vs that kind's negatives. acc@t: share of pairs on the "
    "right side of t (a positive scored >= t is answered, a negative < t refused); ans@t: "
    "positives >= t; ref@t: negatives < t."
)


def pair_lines(e: dict) -> list[str]:
    """The qa-pairs evaluator (``localcrag eval qa-pairs``): one row per family and per
    negative kind, then the means; the one wording of these figures (terminal and report.md)."""
    lo, up = e["lower_threshold"], e["upper_threshold"]
    what = f"{e['per_family']} per family" + (
        f", only {', '.join(e['sources'])}" if e.get("sources") else ""
    )
    out = [
        f"retrieval evaluator on labelled pairs ({e['grader']}, {e['pairs']} pairs, {what}, seed {e['seed']}; "
        f"{fmt(e['ms_per_pair'], 2)} ms/pair; thresholds lower {lo} / upper {up}, {e['thresholds']['basis']}):"
    ]
    rows = []
    for name, g in e["families"].items():
        mark = ("ship_ok" if g["ship_ok"] else "eval-only") + (
            ", trained: in-sample" if g["trained"] else ""
        )
        rows.append(
            [
                name,
                mark,
                str(g["n"]),
                fmt(g["auc"]),
                fmt(g["accuracy"]),
                fmt(g["answered_lower"]),
                fmt(g["refused_lower"]),
                fmt(g["accuracy_upper"]),
                fmt(g["answered_upper"]),
                fmt(g["refused_upper"]),
            ]
        )
        rows += [
            [f"  vs {kind}", "", str(k["n"]), fmt(k["auc"]), *[""] * 6]
            for kind, k in g["kinds"].items()
        ]
    for key, label in (("eval_only", "mean, eval-only"), ("ship_ok", "mean, ship_ok")):
        mean = e["means"][key]
        if mean["groups"]:
            rows.append(
                [
                    f"{label} ({len(mean['groups'])})",
                    f"min {fmt(mean['min_auc'])}",
                    "",
                    fmt(mean["auc"]),
                    fmt(mean["accuracy"]),
                    *[""] * 5,
                ]
            )
    out += table(
        [
            "family",
            "set",
            "pairs",
            "AUC",
            f"acc@{lo}",
            f"ans@{lo}",
            f"ref@{lo}",
            f"acc@{up}",
            f"ans@{up}",
            f"ref@{up}",
        ],
        rows,
    )
    out.append(
        f"all pairs pooled: AUC {fmt(e['auc_all'])}, accuracy at lower {fmt(e['accuracy'])}, "
        f"at upper {fmt(e['accuracy_upper'])}"
    )
    if e.get("trained_on"):
        out.append(
            f"the grader declares it was trained on: {', '.join(e['trained_on'])}"
            + (
                f" (dropped: {', '.join(e['excluded'])})"
                if e.get("excluded")
                else " (those rows are in-sample; --exclude-trained drops them)"
            )
        )
    return out + [PAIR_NOTE]


def pair_chart(e: dict, plt, np):  # noqa: ANN001, ANN201 - matplotlib and numpy, imported by the caller
    """AUC per family, eval-only and ship_ok families in two colours (a figure to save)."""
    names = list(e["families"])
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(names) + 2), 4))
    colours = ["tab:orange" if not e["families"][n]["ship_ok"] else "tab:blue" for n in names]
    ax.bar(np.arange(len(names)), [e["families"][n]["auc"] or 0 for n in names], color=colours)
    ax.axhline(0.5, color="grey", linestyle=":")
    ax.set_xticks(np.arange(len(names)), names, rotation=40, ha="right")
    ax.set_ylim(0, 1.0)
    ax.set_ylabel("ROC-AUC")
    ax.set_title(f"{e['grader']}: AUC per family (orange: eval-only, blue: ship_ok)")
    return fig
