"""Put one section measured alone into the benchmarks of record, saying where it came from.

``python -m bench --only hostile --out /tmp/hostile.md`` measures one section on the code
checked out; this replaces that section (and its rows of the targets table) in
BENCHMARKS.json and BENCHMARKS.md with the new run's, and records in the section the commit,
date and command of that run, so a reader sees which figures are newer than the full run
named at the top. Usage::

    python scripts/splice_bench.py /tmp/hostile.json hostile
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _number(title: str) -> str:
    return title.split(".", 1)[0]


def splice(run_json: Path, only: str, repo: Path = REPO) -> list[str]:
    """Replace in the record every section of ``run_json``; returns their titles."""
    run = json.loads(run_json.read_text(encoding="utf-8"))
    record_path = repo / "BENCHMARKS.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    md_path = repo / "BENCHMARKS.md"
    md = md_path.read_text(encoding="utf-8")
    run_md = run_json.with_suffix(".md").read_text(encoding="utf-8")
    done = []
    for sec in run["sections"]:
        n = _number(sec["title"])
        where = f"measured alone: `python -m bench --only {only}` at {run['commit']}, {run['date']}"
        sec["data"]["measured_alone"] = {"commit": run["commit"], "date": run["date"], "only": only}
        i = next(k for k, s in enumerate(record["sections"]) if _number(s["title"]) == n)
        record["sections"][i] = sec
        record["targets"] = [t for t in record["targets"] if _number(t["section"]) != n]
        at = next(
            (k for k, t in enumerate(record["targets"]) if int(_number(t["section"])) > int(n)),
            len(record["targets"]),
        )
        record["targets"][at:at] = [t for t in run["targets"] if _number(t["section"]) == n]
        body = re.search(rf"^## {n}\. .*?(?=^## |\Z)", run_md, re.S | re.M)
        assert body is not None, f"section {n} not in the run's Markdown"
        text = body.group(0).replace("\n\n", f"\n\n_{where}_\n\n", 1)
        old_body = re.search(rf"^## {n}\. .*?(?=^## |\Z)", md, re.S | re.M)
        assert old_body is not None, f"section {n} not in BENCHMARKS.md"
        md = md[: old_body.start()] + text + md[old_body.end() :]
        rows = [ln for ln in run_md.splitlines() if ln.startswith(f"| {n}. ")]
        old = [ln for ln in md.splitlines() if ln.startswith(f"| {n}. ")]
        lines = md.splitlines()
        first = lines.index(old[0]) if old else None
        lines = [ln for ln in lines if ln not in old]
        if first is not None:
            lines[first:first] = rows
        md = "\n".join(lines) + "\n"
        done.append(sec["title"])
    record_path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", "utf-8")
    md_path.write_text(md, encoding="utf-8")
    return done


if __name__ == "__main__":
    for title in splice(Path(sys.argv[1]), sys.argv[2]):
        print(f"spliced: {title}")
