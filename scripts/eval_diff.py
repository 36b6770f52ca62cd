"""Two `localcrag eval --json` outputs side by side: answer F1 (recall) per mode and slice.

For a before/after table: the answerable questions' mean token F1 and recall in each run,
and how many answers changed. With ``--fit N`` the seed-0 ``--limit N`` slice (the one a
choice was fitted on, ``datasets.select``) is reported apart from the rest (held out).

    python scripts/eval_diff.py before.json after.json --fit 40
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from localcrag.eval.adapters import load_dataset
from localcrag.eval.datasets import select


def items(path: Path) -> dict[str, dict]:
    return {it["qid"]: it for it in json.loads(path.read_text())["items"]}


def summary(run: dict[str, dict], qids: list[str], mode: str) -> str:
    xs = [run[q][mode] for q in qids if run[q]["answerable"] and mode in run[q]]
    if not xs:
        return "-"
    f1 = statistics.mean(x.get("f1") or 0.0 for x in xs)
    return f"{f1:.3f} ({statistics.mean(x.get('recall') or 0.0 for x in xs):.3f}) of {len(xs)}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    p.add_argument("--fit", type=int, default=None, help="report the seed-0 --limit N slice apart")
    a = p.parse_args()
    before, after = items(a.before), items(a.after)
    qids = [q for q in after if q in before]
    slices = {"all": qids}
    if a.fit:
        ds = load_dataset(Path(json.loads(a.after.read_text())["path"]))
        fit = {q.qid for q in select(ds.questions, a.fit, 0)}
        slices = {
            f"seed-0 {a.fit} (in-sample)": [q for q in qids if q in fit],
            "held out": [q for q in qids if q not in fit],
        }
    for name, ids in slices.items():
        for mode in sorted({m for q in ids for m in after[q] if isinstance(after[q][m], dict)}):
            changed = sum(
                before[q].get(mode, {}).get("answer") != after[q][mode].get("answer") for q in ids
            )
            print(
                f"{name:22} {mode:16} before {summary(before, ids, mode):20} "
                f"after {summary(after, ids, mode):20} answers changed {changed}"
            )


if __name__ == "__main__":
    main()
