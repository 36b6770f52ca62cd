"""``python -m bench [--quick] [--only ingest,retrieval,...] [--alone] [--check] [--out BENCHMARKS.md]``."""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from bench import (
    CACHE,
    ROOT,
    Section,
    answers,
    e2e,
    endpoint,
    grading,
    hostile,
    identifiers,
    index,
    ingest,
    log,
    memory,
    mixed,
    ocr,
    retrieval,
    scale,
    shared,
    watch,
)
from bench.code import SECTIONS, code_hash, paths, stale

# section name (bench/code.py's map, in the report's order) -> its run(quick)
RUNS: dict[str, Callable[[bool], Section]] = {
    "ingest": ingest.run,
    "retrieval": retrieval.run,
    "grading": grading.run,
    "e2e": e2e.run,
    "memory": memory.run,
    "answers": answers.run,
    "index": index.run,
    "shared": shared.run,
    "hostile": hostile.run,
    "watch": watch.run,
    "endpoint": endpoint.run,
    "ocr": ocr.run,
    "scale": scale.run,
    "identifiers": identifiers.run,
    "mixed": mixed.run,
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer runs and smaller inputs (< 3 min)")
    p.add_argument(
        "--only", default=",".join(SECTIONS), help=f"comma-separated subset of {SECTIONS}"
    )
    p.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    p.add_argument(
        "--check",
        action="store_true",
        help="list the sections of BENCHMARKS.json whose code changed since they were measured",
    )
    p.add_argument(
        "--alone",
        action="store_true",
        help="write only the sections run (default with --only: merge them into --out's record)",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="re-measure retrieval quality even when .bench/quality.json has it for this code",
    )
    args = p.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    if bad := [s for s in only if s not in SECTIONS]:
        p.error(f"unknown section(s): {', '.join(bad)}")

    os.chdir(ROOT)
    if args.check:
        return check(args.out.with_suffix(".json"))
    if args.fresh:
        os.environ["LCBENCH_FRESH"] = "1"
    CACHE.mkdir(exist_ok=True)
    from bench.report import commit, machine, render, to_json
    from localcrag.settings import Settings

    s = Settings.load()
    models = {
        "Embedder": s.models.embedder,
        "Generator": s.models.generator,
        "Default grader": s.evaluator.grader,
    }
    header = machine(models)
    measured_on = commit()  # before this run writes BENCHMARKS.md (which would read as dirty)
    t0 = time.perf_counter()
    sections: list[Section] = []
    for name in only:
        log(f"section {name}")
        t = time.perf_counter()
        code = {"paths": list(paths(name)), "sha256": code_hash(name)}  # as it starts
        try:
            sec = RUNS[name](args.quick)
        except Exception as exc:  # noqa: BLE001 - one broken section still leaves a report
            traceback.print_exc()
            sec = Section(name, notes=[f"failed: {type(exc).__name__}: {exc}"])
        sec.seconds = time.perf_counter() - t
        sec.name, sec.code = name, code
        sec.run = {
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "commit": measured_on,
            "quick": args.quick,
        }
        sections.append(sec)
        log(f"section {name} done in {sec.seconds:.0f} s")
    sections = merged(sections, args.out.with_suffix(".json"), args.alone)
    quick = args.quick or any(sec.run.get("quick") for sec in sections)
    text = render(sections, models, quick, time.perf_counter() - t0, header)
    args.out.write_text(text, encoding="utf-8")
    args.out.with_suffix(".json").write_text(
        to_json(sections, models, quick, header, measured_on), encoding="utf-8"
    )
    print(text)
    failed = [t for sec in sections for t in sec.targets if t[2] is False]
    log(
        f"wrote {args.out} and {args.out.with_suffix('.json').name} ({len(failed)} target(s) missed)"
    )
    return 0


def merged(ran: list[Section], record: Path, alone: bool) -> list[Section]:
    """The sections just run, put into the record's place for them: every other section the
    record holds is kept as it was measured (its run's date, commit and code hash travel
    with it), in the report's order. ``alone`` (or no record): only the sections run."""
    import json

    if alone or not record.exists():
        return ran
    from bench.report import sections_from_json

    by_name = {sec.name: sec for sec in sections_from_json(json.loads(record.read_text()))}
    by_name.update({sec.name: sec for sec in ran})
    return [by_name[name] for name in SECTIONS if name in by_name]


def check(path: Path) -> int:
    """Print the sections of ``path`` whose code changed since they were measured; 1 if any."""
    import json

    if not path.exists():
        print(f"{path.name}: none (run `make bench`)")
        return 1
    data = json.loads(path.read_text(encoding="utf-8"))
    old = stale(data)
    for name, why in old.items():
        print(f"{name}: {why} (python -m bench --only {name})")
    measured = len(data.get("sections", []))
    print(
        f"{measured - len(old)} of {measured} sections measured on the code here ({data.get('commit')})"
    )
    return 1 if old else 0


if __name__ == "__main__":
    sys.exit(main())
